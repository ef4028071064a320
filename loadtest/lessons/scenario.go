package lessons

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// A scenario replays one seed pitfall (internal/lessons has the catalogue:
// names, predictions, seeds) against running shop replicas: it sets the
// failure up through the API (sales, orders, POST /api/faults), reads what
// happened from the database (the sale view: oversold, lost updates,
// violations, fenced writes) and says PASS when that agrees with the
// prediction. Each one runs the unsafe setup AND its fix, so a PASS means
// both directions held.
type Scenario struct {
	catalogue.Lesson
	run ScenarioFunc
}

// ScenarioFunc runs one scenario and describes what it observed.
type ScenarioFunc func(ctx context.Context, sc *ScenarioRun) (observed string, pass bool, err error)

// Family makes a lesson family's scripts ScenarioFuncs: wrap gives each
// script the run as the family's own type, whose methods are its steps.
func Family[R any](wrap func(*ScenarioRun) R, scripts map[string]func(context.Context, R) (string, bool, error)) map[string]ScenarioFunc {
	out := make(map[string]ScenarioFunc, len(scripts))
	for name, run := range scripts {
		out[name] = func(ctx context.Context, sc *ScenarioRun) (string, bool, error) { return run(ctx, wrap(sc)) }
	}
	return out
}

// ScenarioRun is what a scenario runs against.
type ScenarioRun struct {
	C       *shopapi.Client `json:"-"`
	Targets []string        `json:"-"`
	// Pace is catalogue.PaceClass for a run a class watches (the lessons
	// with ClassPace then send their buyers together with seconds of work,
	// make each case last 20 s and pause between cases: classpace.go);
	// "" or PaceNormal is the scenario's own.
	Pace string `json:"-"`
	// mu guards sales: every sale the scenarios created or read, in order
	// (--timeline saves theirs, the agent reports them).
	mu      sync.Mutex
	sales   []uint64
	onSales func([]uint64)
	// onNext, when set, is told what the next case shows at the class
	// pace, when the pause before it begins (next, classpace.go).
	onNext func(catalogue.Next)
	// out is the running lesson's output (RunOne sets it): the class
	// pace's "next:" lines go there.
	out io.Writer
}

// RunOne runs s, printing its prediction and outcome to out, and returns
// its verdict (PASS, FAIL, ERROR or SKIP) and what it observed.
func RunOne(ctx context.Context, sc *ScenarioRun, s Scenario, out io.Writer) (verdict, observed string) {
	fmt.Fprintf(out, "== %s\n   %s predicts: %s\n", s.Name, s.PredictedBy(), s.Predict)
	if len(sc.Targets) < s.MinReplicas {
		observed = fmt.Sprintf("needs %d replicas, got %d", s.MinReplicas, len(sc.Targets))
		fmt.Fprintf(out, "   %s: %s\n", catalogue.VerdictSkip, observed)
		return catalogue.VerdictSkip, observed
	}
	if sc.Pace == catalogue.PaceClass && !s.ClassPace {
		fmt.Fprintf(out, "   pace:          this lesson has no teaching pace; it runs at normal pace\n")
	}
	sc.out = out
	start := time.Now()
	before := len(sc.Sales())
	err := sc.preflight(ctx, s)
	var pass bool
	if err == nil {
		observed, pass, err = s.run(ctx, sc)
	}
	if made, asked := len(sc.Sales())-before, len(catalogue.CaseQuestions(s.Name)); err == nil && made < asked {
		// A class asked about case i must see case i's sale at the reveal:
		// fewer sales than questions is a catalogue out of step with its
		// scenario. More is a scenario that tried a case again (a window
		// the machine missed), which is not an error: it is said.
		err = fmt.Errorf("made %d sales, but the catalogue asks %d case questions of this lesson (internal/catalogue/questions_cases.go)", made, asked)
	} else if err == nil && made > asked {
		fmt.Fprintf(out, "   note:          %d sales for %d case questions: a case was tried again; a class question about a later case sees a shifted sale\n", made, asked)
	}
	verdict = catalogue.VerdictPass
	skip, isSkip := SkipOf(err)
	switch {
	case isSkip:
		verdict, observed = catalogue.VerdictSkip, skip.Error()
	case err != nil:
		verdict, observed = catalogue.VerdictError, err.Error()
	case !pass:
		verdict = catalogue.VerdictFail
	}
	fmt.Fprintf(out, "   observed:      %s\n   %s (%.1f s)\n", observed, verdict, time.Since(start).Seconds())
	return verdict, observed
}

// Fault is POST target/api/faults.
func (sc *ScenarioRun) Fault(ctx context.Context, target string, body map[string]any) error {
	var out map[string]any
	_, err := sc.C.CallJSON(ctx, http.MethodPost, target+"/api/faults", body, http.StatusAccepted, &out)
	return err
}

// WaitPaused waits until a holder on target is stalled by pause_holder
// (GET /api/faults reports it): the buyer is inside its section and holds
// the lock, however long the machine took to get it there.
func (sc *ScenarioRun) WaitPaused(ctx context.Context, target string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		n, err := sc.PausedHolders(ctx, target)
		if errors.Is(err, errNoPausedHolders) {
			return err
		}
		if err == nil && n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for buyer-1 to hold the lock stalled by pause_holder on %s: %w", target, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// StalledOrder arms pause_holder (ms) on target, sends user's order there
// and returns once it is stalled inside its section, holding the lock; its
// answer comes on the channel. A short lease (pause-past-ttl's 500 ms, the
// watchdog renewing every third of it) can lapse on a loaded machine before
// the buyer reaches the stall: its lock check stops it (lock_lost, nothing
// written, the pause spent), and it tries again.
// Any other answer before the stall is an error that names it.
func (sc *ScenarioRun) StalledOrder(ctx context.Context, target string, id uint64, user string, ms int) (<-chan string, error) {
	const attempts = 5
	for attempt := 1; ; attempt++ {
		if err := sc.Fault(ctx, target, map[string]any{"kind": faultkind.PauseHolder, "ms": ms}); err != nil {
			return nil, err
		}
		answer := sc.OrderAsync(ctx, target, id, user)
		early, err := sc.WaitPausedOr(ctx, target, answer)
		switch {
		case err != nil:
			return nil, err
		case early == "":
			return answer, nil
		case early != "lock_lost" || attempt == attempts:
			return nil, fmt.Errorf("%s answered %s before it was stalled inside its section on %s (attempt %d)", user, early, target, attempt)
		}
		// The lost attempt took the armed pause with it (a section takes the
		// pause when it enters): the next attempt arms it again.
	}
}

// WaitPausedOr is waitPaused that also ends when the buyer's answer comes
// first: then it returns that answer (and the channel is drained).
func (sc *ScenarioRun) WaitPausedOr(ctx context.Context, target string, answer <-chan string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		n, err := sc.PausedHolders(ctx, target)
		if errors.Is(err, errNoPausedHolders) {
			return "", err
		}
		if err == nil && n > 0 {
			return "", nil
		}
		select {
		case k := <-answer:
			return k, nil
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for a buyer to hold the lock stalled by pause_holder on %s: %w", target, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

var errNoPausedHolders = errors.New("GET /api/faults has no paused_holders (an older shop?)")

// PausedHolders is target's count of holders stalled by pause_holder now.
func (sc *ScenarioRun) PausedHolders(ctx context.Context, target string) (int64, error) {
	var out struct {
		PausedHolders *int64 `json:"paused_holders"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults", nil, http.StatusOK, &out); err != nil {
		return 0, err
	}
	if out.PausedHolders == nil {
		return 0, fmt.Errorf("%s: %w", target, errNoPausedHolders)
	}
	return *out.PausedHolders, nil
}

// Settled reads the sale once every live target has written its critical
// sections (a scenario may have killed one).
func (sc *ScenarioRun) Settled(ctx context.Context, id uint64) (shopapi.SaleView, error) {
	sc.Note(id)
	v, _, err := sc.C.SettledSale(ctx, sc.Targets, id)
	return v, err
}

// Quiescent reads the sale until two reads a second apart agree on sold and
// stock (60 s at most): buyers whose requests timed out on the client side
// may still be inside the shop, and a read between an order's commit and the
// count would show a lost update that is not there.
func (sc *ScenarioRun) Quiescent(ctx context.Context, id uint64) (shopapi.SaleView, error) {
	prev, err := sc.Settled(ctx, id)
	for deadline := time.Now().Add(time.Minute); err == nil && time.Now().Before(deadline); {
		if err := load.Sleep(ctx, time.Second); err != nil {
			return prev, err
		}
		var v shopapi.SaleView
		if v, err = sc.Settled(ctx, id); err == nil && v.Sold == prev.Sold && v.Stock == prev.Stock {
			return v, nil
		}
		prev = v
	}
	return prev, err
}

// Contend has buyers buyers, spread over the targets, place orders
// orders each on sale id, one after the other, and waits for them all.
func (sc *ScenarioRun) Contend(ctx context.Context, id uint64, buyers, orders int) {
	var wg sync.WaitGroup
	for w := 0; w < buyers; w++ {
		target := sc.Targets[w%len(sc.Targets)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < orders; i++ {
				sc.C.Order(ctx, shopapi.OrdersURL(target, id), fmt.Sprintf("u%d-%d", w, i))
			}
		}()
	}
	wg.Wait()
}

// BrokenThenHeld runs the same contended sale (brokenThenHeldSettings) on
// a broken strategy, which must let holders in together and lose an
// update, and on its fix, which must break nothing (brokenThenHeldVerdict).
func (sc *ScenarioRun) BrokenThenHeld(ctx context.Context, name, broken, fix string) (string, bool, error) {
	return sc.BrokenThenHeldAcross(ctx, name, broken, fix, false)
}

// BrokenThenHeldAcross is brokenThenHeld; acrossReplicas says the broken
// strategy's lock is each replica's own: at least one of its overlaps must
// then pair sections on two different replicas (the sale's timeline).
func (sc *ScenarioRun) BrokenThenHeldAcross(ctx context.Context, name, broken, fix string, acrossReplicas bool) (string, bool, error) {
	var sides []heldSide
	set := brokenThenHeldSettings(sc.Pace)
	for i, strategy := range []string{broken, fix} {
		if i > 0 {
			if err := sc.Next(ctx, fmt.Sprintf("the same buyers on %s, which locks the row: watch them wait in turn", fix),
				fmt.Sprintf("同样的买家改用 %s，它会锁住这一行：看他们排队等锁", fix)); err != nil {
				return "", false, err
			}
		}
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: name, Strategy: strategy, Stock: set.Stock, WorkMS: set.WorkMS})
		if err != nil {
			return "", false, err
		}
		if set.Rounds {
			sc.Rounds(ctx, v.ID, sc.Targets, set.Buyers, set.CaseMin, "u")
		} else {
			sc.Contend(ctx, v.ID, set.Buyers, set.Orders)
		}
		s := heldSide{strategy: strategy}
		if s.view, err = sc.Settled(ctx, v.ID); err != nil {
			return "", false, err
		}
		if acrossReplicas && strategy == broken {
			if s.pairs, err = sc.overlapPairs(ctx, v.ID); err != nil {
				return "", false, err
			}
		}
		sides = append(sides, s)
	}
	ok, why := brokenThenHeldVerdict(sides[0], sides[1], acrossReplicas)
	out := sides[0].String(acrossReplicas) + " | " + sides[1].String(false)
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// heldSide is one strategy's case of brokenThenHeld: the sale's figures and,
// when read, its overlaps by the replicas of their two sections.
type heldSide struct {
	strategy string
	view     shopapi.SaleView
	pairs    overlapReplicas
}

func (s heldSide) String(withPairs bool) string {
	out := fmt.Sprintf("%s: %s", s.strategy, Describe(s.view))
	if withPairs {
		out += fmt.Sprintf(" (overlaps between two replicas' sections %d, on one replica %d", s.pairs.across, s.pairs.within)
		if s.pairs.summarised {
			out += ", timeline summarised: sections not listed"
		}
		out += ")"
	}
	return out
}

// brokenThenHeldVerdict: the broken strategy let holders in together
// (violations >= 1) and one's write lost another's (lost_updates >= 1), and
// with acrossReplicas at least one overlap paired sections on two different
// replicas; the fix broke nothing.
func brokenThenHeldVerdict(broken, fix heldSide, acrossReplicas bool) (bool, string) {
	b, f := broken.view, fix.view
	switch {
	case b.Violations < 1:
		return false, fmt.Sprintf("%s: no overlapping sections (violations %d)", broken.strategy, b.Violations)
	case b.LostUpdates < 1:
		return false, fmt.Sprintf("%s: no lost update (lost_updates %d)", broken.strategy, b.LostUpdates)
	case acrossReplicas && broken.pairs.across < 1:
		return false, fmt.Sprintf("%s: no overlap between sections on two replicas (%d on one replica)", broken.strategy, broken.pairs.within)
	case f.Oversold > 0 || f.LostUpdates > 0 || f.Violations > 0:
		return false, fmt.Sprintf("%s broke: oversold %d lost_updates %d violations %d", fix.strategy, f.Oversold, f.LostUpdates, f.Violations)
	}
	return true, ""
}

// overlapReplicas counts a sale's overlaps by where their two sections ran.
type overlapReplicas struct {
	across, within int
	// summarised: the timeline had too many sections to list them, so no
	// overlap could be placed.
	summarised bool
}

// saleSections is the part of GET /api/sales/{id}/timeline that places
// each overlap's two sections on their replicas.
type saleSections struct {
	Summarised bool `json:"summarised"`
	Sections   []struct {
		ID      uint64 `json:"id"`
		Replica string `json:"replica"`
	} `json:"sections"`
	Overlaps []struct {
		A uint64 `json:"a"`
		B uint64 `json:"b"`
	} `json:"overlaps"`
}

// pairs counts the overlaps whose sections ran on two different replicas
// and on one; an overlap with a section not listed counts in neither.
func (t saleSections) pairs() overlapReplicas {
	o := overlapReplicas{summarised: t.Summarised}
	replica := map[uint64]string{}
	for _, s := range t.Sections {
		replica[s.ID] = s.Replica
	}
	for _, p := range t.Overlaps {
		a, okA := replica[p.A]
		b, okB := replica[p.B]
		switch {
		case !okA || !okB:
		case a != b:
			o.across++
		default:
			o.within++
		}
	}
	return o
}

// overlapPairs reads sale id's timeline (after settled: every replica has
// written its sections) and counts its overlaps by replica.
func (sc *ScenarioRun) overlapPairs(ctx context.Context, id uint64) (overlapReplicas, error) {
	var t saleSections
	url := sc.Targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/timeline"
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &t); err != nil {
		return overlapReplicas{}, err
	}
	return t.pairs(), nil
}

// Script is the lessons of the catalogue that runners has a script for,
// each with it, in the catalogue's order.
func Script(runners map[string]ScenarioFunc) []Scenario {
	var out []Scenario
	for _, l := range catalogue.Catalogue {
		if run, ok := runners[l.Name]; ok {
			out = append(out, Scenario{Lesson: l, run: run})
		}
	}
	return out
}
