package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/runwire"
)

// claimCandidateSQL picks an unclaimed share of a running step of a running
// run, oldest run first, where this agent holds no share yet: one agent per
// share, so that a step's buyers really come from several processes.
const claimCandidateSQL = `SELECT sh.run_id, sh.step, sh.share FROM run_shares sh
JOIN runs r ON r.id = sh.run_id AND r.current_step = sh.step AND r.status = 'running'
JOIN run_steps st ON st.run_id = sh.run_id AND st.step = sh.step AND st.status = 'running'
WHERE sh.agent_id IS NULL AND NOT sh.done AND st.deadline > UTC_TIMESTAMP(6)
  AND NOT EXISTS (SELECT 1 FROM run_shares mine
    WHERE mine.run_id = sh.run_id AND mine.step = sh.step AND mine.agent_id = ?)
ORDER BY sh.run_id, sh.share LIMIT 1`

// claimAttempts bounds the retries when another agent takes the candidate
// between the SELECT and the UPDATE.
const claimAttempts = 5

// Claim gives agentID a share to execute, or ok false when there is none.
// The claim is the conditional UPDATE ... WHERE agent_id IS NULL: of two
// agents racing for one share exactly one changes the row.
func (s *Service) Claim(ctx context.Context, agentID string) (a runwire.Assignment, ok bool, err error) {
	if err := s.Advance(ctx); err != nil {
		return a, false, err
	}
	db := s.db.WithContext(ctx)
	for range claimAttempts {
		var c struct {
			RunID uint64
			Step  int
			Share int
		}
		res := db.Raw(claimCandidateSQL, agentID).Scan(&c)
		if res.Error != nil {
			return a, false, fmt.Errorf("runs: claim: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return a, false, nil
		}
		upd := db.Exec(`UPDATE run_shares SET agent_id = ?, claimed_at = UTC_TIMESTAMP(6)
WHERE run_id = ? AND step = ? AND share = ? AND agent_id IS NULL`, agentID, c.RunID, c.Step, c.Share)
		if upd.Error != nil {
			return a, false, fmt.Errorf("runs: claim: %w", upd.Error)
		}
		if upd.RowsAffected == 1 {
			a, err := s.assignment(ctx, c.RunID, c.Step, c.Share)
			return a, err == nil, err
		}
	}
	return a, false, nil // lost every race: the agent polls again soon
}

// assignment reads what the agent holding a share must do.
func (s *Service) assignment(ctx context.Context, runID uint64, step, share int) (runwire.Assignment, error) {
	db := s.db.WithContext(ctx)
	var run runRow
	var st stepRow
	var sh shareRow
	if err := db.First(&run, runID).Error; err != nil {
		return runwire.Assignment{}, err
	}
	if err := db.Where("run_id = ? AND step = ?", runID, step).First(&st).Error; err != nil {
		return runwire.Assignment{}, err
	}
	if err := db.Where("run_id = ? AND step = ? AND share = ?", runID, step, share).First(&sh).Error; err != nil {
		return runwire.Assignment{}, err
	}
	var cfg Config
	var targets []string
	if err := errors.Join(json.Unmarshal([]byte(run.Config), &cfg), json.Unmarshal([]byte(run.Targets), &targets)); err != nil {
		return runwire.Assignment{}, fmt.Errorf("runs: run %d: %w", runID, err)
	}
	var shares int64
	if err := db.Model(&shareRow{}).Where("run_id = ? AND step = ?", runID, step).Count(&shares).Error; err != nil {
		return runwire.Assignment{}, err
	}
	a := runwire.Assignment{RunID: runID, Step: step, Share: share, Strategy: st.Strategy, Targets: targets,
		Buyers: sh.Buyers, UserPrefix: sh.UserPrefix, Concurrency: cfg.Concurrency, TicketRequired: cfg.TicketRequired}
	if st.SaleID != nil {
		a.SaleID = *st.SaleID
		if cfg.OpensInMS > 0 { // the agents connect first and fire at the opening, as a herd does
			opens, err := inventory.SaleOpensAt(ctx, db, a.SaleID)
			if err != nil {
				return runwire.Assignment{}, fmt.Errorf("runs: opening of sale %d: %w", a.SaleID, err)
			}
			a.OpensAt = opens.UTC()
		}
	}
	if st.Deadline != nil {
		a.Deadline = st.Deadline.UTC()
	}
	if cfg.Rate > 0 && st.Buyers > 0 {
		// The step's rate, split in proportion to this share's buyers.
		a.Rate = cfg.Rate * float64(sh.Buyers) / float64(st.Buyers)
	}
	return a, nil
}

// Report stores r (cumulative figures replace the previous ones) if r's
// agent holds the share, extends the step's deadline if r shows progress,
// advances the runs that are due, and answers the step's deadline.
func (s *Service) Report(ctx context.Context, r runwire.Report) (runwire.Ack, error) {
	if err := s.report(ctx, r); err != nil {
		return runwire.Ack{}, err
	}
	var st stepRow
	if err := s.db.WithContext(ctx).Where("run_id = ? AND step = ?", r.RunID, r.Step).First(&st).Error; err != nil {
		return runwire.Ack{}, fmt.Errorf("runs: report: %w", err)
	}
	var ack runwire.Ack
	if st.Deadline != nil {
		ack.Deadline = st.Deadline.UTC()
	}
	return ack, nil
}

// extendSQL pushes the deadline of a still open step when the report shows
// progress over the share's last one. It runs before the share's row is
// updated, which is what it compares with.
const extendSQL = `UPDATE run_steps st JOIN run_shares sh ON sh.run_id = st.run_id AND sh.step = st.step
SET st.deadline = GREATEST(st.deadline, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)
WHERE sh.run_id = ? AND sh.step = ? AND sh.share = ? AND sh.agent_id = ? AND sh.requests < ?
  AND st.status = 'running' AND st.deadline > UTC_TIMESTAMP(6)`

func (s *Service) report(ctx context.Context, r runwire.Report) error {
	if err := checkReport(r); err != nil {
		return err
	}
	if r.Errors == nil {
		r.Errors = map[string]int64{}
	}
	errs, _ := json.Marshal(r.Errors)
	db := s.db.WithContext(ctx)
	if err := db.Exec(extendSQL, StallGrace.Microseconds(), r.RunID, r.Step, r.Share, r.AgentID, r.Requests).Error; err != nil {
		return fmt.Errorf("runs: report: %w", err)
	}
	res := db.Exec(`UPDATE run_shares SET requests = ?, orders = ?, sold_out = ?, errors = ?, elapsed_ms = ?,
  histogram = ?, done = done OR ?, reported_at = UTC_TIMESTAMP(6)
WHERE run_id = ? AND step = ? AND share = ? AND agent_id = ?`,
		r.Requests, r.Orders, r.SoldOut, string(errs), r.ElapsedMS, r.Histogram, r.Done,
		r.RunID, r.Step, r.Share, r.AgentID)
	if res.Error != nil {
		return fmt.Errorf("runs: report: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		// Either the share does not exist or someone else holds it. (An
		// identical re-report also affects 0 rows in MySQL, but reported_at
		// always changes, so it never is identical.)
		var n int64
		if err := db.Model(&shareRow{}).Where("run_id = ? AND step = ? AND share = ?", r.RunID, r.Step, r.Share).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		return ErrNotYours
	}
	if r.Done {
		return s.Advance(ctx)
	}
	return nil
}

// decodeHist decodes an agent's histogram. hdrhistogram-go v1.2.0's Decode
// panics on short or corrupt input (it slices the decoded bytes without
// checking their length), so a garbled report must not reach it unguarded.
func decodeHist(enc string) (h *hdrhistogram.Histogram, err error) {
	if len(enc) > maxHistLen {
		return nil, errHistTooLarge
	}
	defer func() {
		if v := recover(); v != nil {
			h, err = nil, fmt.Errorf("corrupt histogram: %v", v)
		}
	}()
	return hdrhistogram.Decode([]byte(enc))
}
