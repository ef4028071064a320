package matrix

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/verdict"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// staleHolderCell is how a cell of a stale-holder fault is set up: buyer A
// held inside its section (pause_holder) for hold, on a sale with ttl, the
// fault (if any beside the pause) injected on A's replica while A holds,
// then buyer B sent to the other replica. The database then says whether
// B got in beside A and whether A's stale write landed.
type staleHolderCell struct {
	ttlMS int
	hold  time.Duration
	fault map[string]any // nil: the pause itself is the fault
}

// observed are the faults this version observes: those whose harm is a
// holder that outlives its lock, judged by the database alone (holds,
// overlapped_safe, broken), on the lock strategies but consistent-hash.
// The others' cells show their prediction only.
var observed = map[faultkind.Name]staleHolderCell{
	// Past the TTL: a lease that does not renew expires under the paused
	// holder; one that renews is kept alive by its live process (a 2 s TTL
	// renewed every third of it: a loaded machine's late renewal does not
	// pass for the fault).
	faultkind.PauseHolder: {ttlMS: 2000, hold: 5 * time.Second},
	// Inside the TTL (15 s): only the fault can take the lock away.
	faultkind.ExpireZKSession: {ttlMS: 15000, hold: 3 * time.Second, fault: map[string]any{"kind": faultkind.ExpireZKSession}},
}

// Observation is one observed cell.
type Observation struct {
	Row        string           `json:"row"`
	Fault      faultkind.Name   `json:"fault"`
	Predicted  model.Prediction `json:"predicted"`
	Kind       string           `json:"kind"` // a cell word
	WhyEn      string           `json:"why_en"`
	SaleID     uint64           `json:"sale_id,omitempty"`
	Tries      int              `json:"tries,omitempty"`
	Finding    bool             `json:"finding"` // observed and predicted differ
	Observable bool             `json:"observable"`
}

// observeCell runs one cell on sc's targets; avail is the first target's
// GET /api/strategies by name.
func observeCell(ctx context.Context, sc *lessons.ScenarioRun, avail map[string]shopapi.StrategyInfo, r model.Row, f faultkind.Name) (Observation, error) {
	o := Observation{Row: r.Name, Fault: f, Predicted: model.Predict(r, f)}
	setup, ok := observed[f]
	switch {
	case o.Predicted.Kind == model.NA:
		o.Kind, o.WhyEn, o.Observable = model.NA, o.Predicted.WhyEn, true
		return o, nil
	case !ok || !r.IsLock():
		o.Kind, o.WhyEn = "", "not observed yet: this version observes the stale-holder faults on the lock strategies"
		return o, nil
	case r.Strategy.Name == "consistent-hash":
		// Its orders go to the sale's owner on the ring; the harness sends
		// buyer-1 and buyer-2 to fixed replicas.
		o.Kind, o.WhyEn = "", "not observed yet: the harness sends its buyers to fixed replicas, consistent-hash to the sale's owner"
		return o, nil
	}
	o.Observable = true
	info, known := avail[r.Strategy.Name]
	if !known || !info.Available {
		o.Kind = model.Skip
		o.WhyEn = fmt.Sprintf("%s is not available on %s (backends %v): make services-up starts its backend", r.Strategy.Name, sc.Targets[0], info.Backends)
		return o, nil
	}
	req := shopapi.SaleRequest{Name: "matrix " + r.Name + " × " + string(f), Strategy: r.Strategy.Name, Stock: 10,
		TTLMS: setup.ttlMS, Fencing: r.Fencing, Combine: r.Combine}
	if r.Strategy.Renews {
		on := !r.NoWatchdog
		req.Watchdog = &on
	}
	var faults []map[string]any
	if setup.fault != nil {
		faults = append(faults, setup.fault)
	}
	held, got, tries, err := sc.OverlapWhileHeld(ctx, req, setup.hold, faults...)
	if err != nil {
		return o, fmt.Errorf("%s × %s: %w", r.Name, f, err)
	}
	v := verdict.Of(verdict.Figures{Oversold: got.Oversold, LostUpdates: got.LostUpdates, Duplicates: got.Duplicates,
		Violations: got.Violations, FencedWrites: got.FencedWrites})
	o.Kind, o.SaleID, o.Tries = v.Kind, got.ID, tries
	o.WhyEn = fmt.Sprintf("%s; buyer-1 %s, buyer-2 %s (buyer-1 still inside then: %v)", v.ReasonEn, held.AKind, held.B, held.AHeld)
	o.Finding = o.Kind != o.Predicted.Kind
	return o, nil
}

// printObservation writes one cell's line, its replay and, for a finding,
// both reasons.
func printObservation(w io.Writer, o Observation, replay string) {
	switch {
	case !o.Observable:
		return
	case o.Kind == model.NA:
		fmt.Fprintf(w, "%-30s %-18s n/a: %s\n", o.Row, o.Fault, o.WhyEn)
		return
	case o.Kind == model.Skip:
		fmt.Fprintf(w, "%-30s %-18s skip: %s\n", o.Row, o.Fault, o.WhyEn)
		return
	}
	mark := ""
	if o.Finding {
		mark = "   FINDING: observed ≠ predicted"
	}
	fmt.Fprintf(w, "%-30s %-18s observed %-15s predicted %-15s sale %d%s\n", o.Row, o.Fault, o.Kind, o.Predicted.Kind, o.SaleID, mark)
	fmt.Fprintf(w, "    %s\n", o.WhyEn)
	if o.Finding {
		fmt.Fprintf(w, "    predicted because: %s\n", o.Predicted.WhyEn)
	}
	fmt.Fprintf(w, "    replay: %s --only %s/%s\n", replay, o.Row, o.Fault)
}

// observedNames lists the observed faults, in the faults' order.
func observedNames() string {
	var names []string
	for _, f := range faultkind.All {
		if _, ok := observed[f]; ok {
			names = append(names, string(f))
		}
	}
	return strings.Join(names, ", ")
}
