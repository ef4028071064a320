package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/metrics"
)

// Latency is a distribution's percentiles in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// ClientView is the agents' side of a step: every share's histogram merged
// (never percentiles averaged) and the counts summed.
type ClientView struct {
	Requests     int64            `json:"requests"`
	Orders       int64            `json:"orders"`
	SoldOut      int64            `json:"sold_out"`
	Errors       map[string]int64 `json:"errors"`
	LatencyMS    Latency          `json:"latency_ms"`
	DurationS    float64          `json:"duration_s"` // the longest share's elapsed time
	RequestsPerS float64          `json:"requests_per_s"`
	OrdersPerS   float64          `json:"orders_per_s"`
}

// AgentRow is one share as its agent last reported it.
type AgentRow struct {
	Share      int        `json:"share"`
	AgentID    string     `json:"agent_id"` // "" while unclaimed
	Buyers     int        `json:"buyers"`
	Requests   int64      `json:"requests"`
	Orders     int64      `json:"orders"`
	Errors     int64      `json:"errors"`
	P99MS      float64    `json:"p99_ms"`
	ReportedAt *time.Time `json:"reported_at"`
	Done       bool       `json:"done"`
}

// StepView is one strategy's step: the database's truth about its sale, the
// merged client side, the server side and the agents.
type StepView struct {
	Step       int                 `json:"step"`
	Strategy   string              `json:"strategy"`
	Status     string              `json:"status"`
	SaleID     uint64              `json:"sale_id"`
	StartedAt  *time.Time          `json:"started_at"`
	Deadline   *time.Time          `json:"deadline"`
	FinishedAt *time.Time          `json:"finished_at"`
	Sale       *inventory.SaleView `json:"sale"`   // null before the step starts
	Client     ClientView          `json:"client"` // zeros before any report
	Server     *metrics.SaleLive   `json:"server"` // null before the step starts
	Agents     []AgentRow          `json:"agents"`
	Limit      *LimitView          `json:"limit"` // null for strategies that take no lock
}

// RunView is a run as GET /api/runs/{id} shows it.
type RunView struct {
	ID          uint64     `json:"id"`
	Status      string     `json:"status"`
	Error       string     `json:"error,omitempty"`
	Config      Config     `json:"config"`
	Targets     []string   `json:"targets"`
	CurrentStep int        `json:"current_step"`
	CreatedAt   time.Time  `json:"created_at"`
	StartedAt   *time.Time `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	Steps       []StepView `json:"steps"`
}

// View returns run id merged across its agents and replicas. It advances
// the run first, so a run whose agents all died still reaches done once
// its deadline passes and someone looks.
func (s *Service) View(ctx context.Context, id uint64) (RunView, error) {
	if err := s.Advance(ctx); err != nil {
		return RunView{}, err
	}
	db := s.db.WithContext(ctx)
	var run runRow
	if err := db.First(&run, id).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return RunView{}, ErrNotFound
		}
		return RunView{}, err
	}
	return s.view(ctx, run)
}

// List returns up to limit runs, newest first, each as View shows it;
// status, when not empty, keeps only the runs in one of those states.
func (s *Service) List(ctx context.Context, limit int, status ...string) ([]RunView, error) {
	if err := s.Advance(ctx); err != nil {
		return nil, err
	}
	q := s.db.WithContext(ctx).Order("id DESC").Limit(limit)
	if len(status) > 0 {
		q = q.Where("status IN ?", status)
	}
	var rows []runRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("runs: list: %w", err)
	}
	out := make([]RunView, 0, len(rows))
	for _, r := range rows {
		v, err := s.view(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (s *Service) view(ctx context.Context, run runRow) (RunView, error) {
	v := RunView{ID: run.ID, Status: run.Status, Error: run.Error, CurrentStep: run.CurrentStep,
		CreatedAt: run.CreatedAt, StartedAt: run.StartedAt, FinishedAt: run.FinishedAt}
	if err := errors.Join(json.Unmarshal([]byte(run.Config), &v.Config), json.Unmarshal([]byte(run.Targets), &v.Targets)); err != nil {
		return v, fmt.Errorf("runs: run %d: %w", run.ID, err)
	}
	db := s.db.WithContext(ctx)
	var steps []stepRow
	var shares []shareRow
	if err := db.Where("run_id = ?", run.ID).Order("step").Find(&steps).Error; err != nil {
		return v, err
	}
	if err := db.Where("run_id = ?", run.ID).Order("step, share").Find(&shares).Error; err != nil {
		return v, err
	}
	store := inventory.NewStore(s.db)
	v.Steps = make([]StepView, 0, len(steps))
	for _, st := range steps {
		sv := StepView{Step: st.Step, Strategy: st.Strategy, Status: st.Status, StartedAt: st.StartedAt,
			Deadline: st.Deadline, FinishedAt: st.FinishedAt, Agents: []AgentRow{}}
		var mine []shareRow
		for _, sh := range shares {
			if sh.Step == st.Step {
				mine = append(mine, sh)
			}
		}
		var err error
		if sv.Client, sv.Agents, err = merge(mine); err != nil {
			return v, fmt.Errorf("runs: run %d step %d: %w", run.ID, st.Step, err)
		}
		if st.SaleID != nil {
			sv.SaleID = *st.SaleID
			sale, err := store.GetSale(ctx, sv.SaleID)
			if err != nil {
				return v, err
			}
			sview, err := store.View(ctx, sale)
			if err != nil {
				return v, err
			}
			sv.Sale = &sview
			live, err := metrics.LoadMerged(ctx, s.db, sv.SaleID)
			if err != nil {
				return v, err
			}
			sv.Server = &live
			sv.Limit = limitOf(st.Strategy, sv.Sale)
		}
		v.Steps = append(v.Steps, sv)
	}
	return v, nil
}

// merge sums the shares' counts and merges their histograms.
func merge(shares []shareRow) (ClientView, []AgentRow, error) {
	cv := ClientView{Errors: map[string]int64{}}
	rows := make([]AgentRow, 0, len(shares))
	var all *hdrhistogram.Histogram
	var longest int64
	for _, sh := range shares {
		row := AgentRow{Share: sh.Share, Buyers: sh.Buyers, Requests: sh.Requests, Orders: sh.Orders,
			ReportedAt: sh.ReportedAt, Done: sh.Done}
		if sh.AgentID != nil {
			row.AgentID = *sh.AgentID
		}
		var errs map[string]int64
		if err := json.Unmarshal([]byte(sh.Errors), &errs); err != nil {
			return cv, nil, err
		}
		for k, n := range errs {
			cv.Errors[k] += n
			row.Errors += n
		}
		if sh.Histogram != "" {
			h, err := decodeHist(sh.Histogram)
			if err != nil {
				return cv, nil, err
			}
			row.P99MS = ms(h.ValueAtQuantile(99))
			if all == nil {
				all = h
			} else {
				all.Merge(h)
			}
		}
		cv.Requests += sh.Requests
		cv.Orders += sh.Orders
		cv.SoldOut += sh.SoldOut
		longest = max(longest, sh.ElapsedMS)
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Share < rows[j].Share })
	if all != nil && all.TotalCount() > 0 {
		cv.LatencyMS = Latency{P50: ms(all.ValueAtQuantile(50)), P95: ms(all.ValueAtQuantile(95)),
			P99: ms(all.ValueAtQuantile(99)), Max: ms(all.Max())}
	}
	// Shares run side by side, so the step lasted as long as its longest
	// share, and throughput is the total over that.
	cv.DurationS = round3(float64(longest) / 1000)
	if longest > 0 {
		cv.RequestsPerS = round3(float64(cv.Requests) * 1000 / float64(longest))
		cv.OrdersPerS = round3(float64(cv.Orders) * 1000 / float64(longest))
	}
	return cv, rows, nil
}

// ms turns histogram microseconds into milliseconds.
func ms(us int64) float64 { return round3(float64(us) / 1000) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
