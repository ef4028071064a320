package contentionlessons

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// rowReads is what the reads that found a row saw of it.
type rowReads struct {
	reads              int
	owners             []string // distinct, in the order seen
	minHolds, maxHolds int64
}

func (rr *rowReads) add(r lessons.LockRow) {
	if !r.Present {
		return
	}
	if rr.reads == 0 || r.Holds < rr.minHolds {
		rr.minHolds = r.Holds
	}
	rr.maxHolds = max(rr.maxHolds, r.Holds)
	rr.reads++
	for _, o := range rr.owners {
		if o == r.Owner {
			return
		}
	}
	rr.owners = append(rr.owners, r.Owner)
}

func (rr rowReads) String() string {
	if rr.reads == 0 {
		return "no read found the row"
	}
	holds := strconv.FormatInt(rr.minHolds, 10)
	if rr.maxHolds != rr.minHolds {
		holds += "-" + strconv.FormatInt(rr.maxHolds, 10)
	}
	return fmt.Sprintf("%d reads found the row: holds %s, %d owner(s)", rr.reads, holds, len(rr.owners))
}

// dbLockReentrant: the nested lock of the reentrancy lesson on the
// database's lock table, each side read in lock_table while buyer-1 is
// inside. db-lock-table-plain has no count: the nested Lock's INSERT meets
// the row its own order holds (one row, holds 1, buyer-1's owner) and is
// retried on each duplicate key until the bound; the order fails and its
// outer unlock deletes the row. db-lock-table's row is owned by the order
// and counts its holds: buyer-1, stalled (pause_holder) at the nested hold,
// shows holds 2; its last unlock deletes the row.
func dbLockReentrant(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, counted := range []bool{false, true} {
		var s nestSide
		for try := 1; ; try++ {
			var err error
			if s, err = sc.dbNestedLock(ctx, counted); err != nil {
				return "", false, err
			}
			if !s.strayNestedRow() {
				break
			}
			if try == nestTries {
				return "", false, fmt.Errorf("%s: %d rounds, in each the nested attempt's cancelled INSERT landed after buyer-1's unlock; the last: owners %v, after it %s",
					s.strategy, try, s.held.owners, s.after)
			}
		}
		ok, why := s.holds()
		pass = pass && ok
		part := fmt.Sprintf("%s: nested lock: buyer-1 %s after %d ms; while it was inside, %s; after it, %s; then buyer-2 %s; %s",
			s.strategy, s.a, s.took.Milliseconds(), s.held, s.after, s.b, lessons.Describe(s.got))
		if !ok {
			part += " (" + why + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}

// nestSide is what one side of db-lock-reentrant saw.
type nestSide struct {
	strategy string
	counted  bool // db-lock-table: the row counts holds
	a, b     string
	took     time.Duration   // buyer-1's answer
	held     rowReads        // the row while buyer-1 was inside (its nested wait; its stall at the nested hold)
	after    lessons.LockRow // the row once buyer-1 had its answer
	got      shopapi.SaleView
}

// nestTries bounds the rounds run per side to get one without the nested
// attempt's stray row (strayNestedRow).
const nestTries = 3

// The nested lock's settings: the TTL outlasts the nested wait and the
// stall, so that no expiry stands in for an unlock.
const (
	nestTTL  = 15 * time.Second
	nestWait = 1500 * time.Millisecond
)

// strayNestedRow says the round saw, on the plain table, the row of the
// nested attempt's INSERT that was cancelled at its timeout and still
// landed in the server once buyer-1's own row was gone: a second owner
// read while buyer-1's answer travelled back and the row read after it,
// or (landed after the last read) buyer-1's owner alone and after it a
// row of another owner inserted once the nested wait had begun (buyer-1's
// own row is older than that). The lock deletes such a row within 2 s
// (dblock.LockTable.Lock); the round did not show the lesson, and is run
// again, never judged.
func (s nestSide) strayNestedRow() bool {
	o := s.held.owners
	if s.counted || !s.after.Present {
		return false
	}
	switch len(o) {
	case 2:
		return s.after.Owner == o[1]
	case 1:
		return s.after.Owner != o[0] && s.after.ExpiresInMS > (nestTTL-nestWait).Milliseconds()
	}
	return false
}

// holds is nestSide's verdict, and why not.
func (s nestSide) holds() (bool, string) {
	switch {
	case s.held.reads == 0:
		return false, "no read found buyer-1's row while it was inside"
	case len(s.held.owners) != 1:
		return false, fmt.Sprintf("the row had %d owners while buyer-1 was inside, not buyer-1's alone", len(s.held.owners))
	case s.after.Present:
		return false, "the row is still there after buyer-1's last unlock: " + s.after.String()
	case s.b != shopapi.KindOrder:
		return false, "buyer-2 answered " + s.b + ", not an order"
	case s.got.Oversold != 0 || s.got.Violations != 0:
		return false, fmt.Sprintf("oversold %d violations %d", s.got.Oversold, s.got.Violations)
	}
	if !s.counted {
		switch {
		case s.a != "nested_lock_timeout":
			return false, "buyer-1 answered " + s.a + ", not nested_lock_timeout"
		case s.held.maxHolds != 1:
			return false, fmt.Sprintf("holds reached %d on the table without a count", s.held.maxHolds)
		case s.got.Sold != 1:
			return false, fmt.Sprintf("sold %d, not buyer-2's 1", s.got.Sold)
		}
		return true, ""
	}
	switch {
	case s.a != shopapi.KindOrder:
		return false, "buyer-1 answered " + s.a + ", not an order"
	case s.held.maxHolds != 2:
		return false, fmt.Sprintf("holds reached %d at the nested hold, not 2", s.held.maxHolds)
	case s.got.Sold != 2:
		return false, fmt.Sprintf("sold %d, not 2", s.got.Sold)
	}
	return true, ""
}

// dbNestedLock runs one side of db-lock-reentrant. The TTL (15 s) outlasts
// the nested wait and the stall, so no expiry stands in for an unlock.
func (sc *scenarioRun) dbNestedLock(ctx context.Context, counted bool) (nestSide, error) {
	s := nestSide{strategy: "db-lock-table-plain", counted: counted}
	if counted {
		s.strategy = "db-lock-table"
	}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario nested lock", Strategy: s.strategy, Stock: 10, TTLMS: int(nestTTL.Milliseconds())})
	if err != nil {
		return s, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.NestedLock, "ms": nestWait.Milliseconds()}); err != nil {
		return s, err
	}
	if counted {
		// The stall comes after the nested Lock went through, inside both
		// holds: the row is read there.
		if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": 3000}); err != nil {
			return s, err
		}
	}
	start := time.Now()
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if counted {
		s.a, err = sc.WaitPausedOr(ctx, t1, a)
		if err != nil {
			return s, err
		}
		for s.a == "" && s.held.reads < 3 {
			r, err := sc.LockRow(ctx, t1, v.ID)
			if err != nil {
				return s, err
			}
			// Paused before this read and after it: read at the nested hold.
			if n, err := sc.PausedHolders(ctx, t1); err != nil || n == 0 {
				break
			}
			s.held.add(r)
			if err := load.Sleep(ctx, 100*time.Millisecond); err != nil {
				return s, err
			}
		}
	} else {
		// The outer row exists from buyer-1's INSERT to its unlock, after
		// the nested Lock gave up: every row read before its answer is it.
		for len(a) == 0 {
			r, err := sc.LockRow(ctx, t1, v.ID)
			if err != nil {
				return s, err
			}
			s.held.add(r)
			if err := load.Sleep(ctx, 20*time.Millisecond); err != nil {
				return s, err
			}
		}
	}
	if s.a == "" {
		s.a = <-a
	}
	s.took = time.Since(start)
	if s.after, err = sc.LockRow(ctx, t1, v.ID); err != nil {
		return s, err
	}
	s.b = sc.C.Order(ctx, shopapi.OrdersURL(sc.Last(), v.ID), "buyer-2")
	s.got, err = sc.Settled(ctx, v.ID)
	return s, err
}

// stuckTTLMS is the expiry of the crashed holder's row in the case where
// it stands for none: 10 minutes (the largest ttl_ms), beyond every buyer's
// lock wait and the whole lesson.
const stuckTTLMS = 600_000

// dbLockCrashedHolder: the lock table when its holder does not unlock.
// Buyer-1 dies right after its INSERT (crash_after_setnx): with an expiry
// 10 minutes off its row stays and the next buyers, one per replica, wait
// out their lock wait; with a 1 s expiry a waiter deletes it as expired
// (the seeds' cleanup, run here by every waiter) and they buy. The same
// cleanup then deletes a live holder's row: buyer-1, stalled 5 s inside
// (pause_holder) under the 1 s expiry, loses its row to buyer-2, who buys
// beside it; unfenced buyer-1's stale write lands, fenced it is refused.
func dbLockCrashedHolder(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, ttl := range []int{stuckTTLMS, 1000} {
		s, err := sc.crashedHolder(ctx, ttl)
		if err != nil {
			return "", false, err
		}
		ok, why := s.holds()
		pass = pass && ok
		var others []string
		for i, o := range s.others {
			others = append(others, fmt.Sprintf("buyer-%d %s after %d ms", i+2, o, s.tookMS[i]))
		}
		part := fmt.Sprintf("crashed holder, ttl %d ms: buyer-1 %s, leaving its %s; %s; then %s; %s",
			ttl, s.a, s.left, strings.Join(others, ", "), s.after, lessons.Describe(s.got))
		if !ok {
			part += " (" + why + ")"
		}
		parts = append(parts, part)
	}
	for _, fencing := range []bool{false, true} {
		s, err := sc.slowHolder(ctx, fencing)
		if err != nil {
			return "", false, err
		}
		ok, why := s.holds()
		pass = pass && ok
		taken := "buyer-1's row stayed while it was stalled"
		if s.taken {
			taken = "while buyer-1 was stalled its row was deleted"
			if s.takenBy != "" {
				taken += " and " + s.takenBy + " held the row"
			}
		}
		part := fmt.Sprintf("slow holder, ttl 1000 ms, fencing=%v: buyer-1 stalled 5 s holding its %s; %s; buyer-2 %s (buyer-1 still stalled then: %v); buyer-1 %s; %s",
			fencing, s.before, taken, s.b, s.bWhileA, s.a, lessons.Describe(s.got))
		if !ok {
			part += " (" + why + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}

// crashSide is what a crashed-holder case of db-lock-crashed-holder saw.
type crashSide struct {
	ttlMS  int
	a      string          // buyer-1: holder_crashed
	left   lessons.LockRow // the row just after the crash
	others []string        // the buyers after it, one per replica
	tookMS []int64
	after  lessons.LockRow // the row once they had their answers
	got    shopapi.SaleView
}

// holds is crashSide's verdict, and why not: with the far expiry the
// crashed holder's row is still there and nobody bought; with the short
// one a waiter deleted it and every buyer bought.
func (s crashSide) holds() (bool, string) {
	switch {
	case s.a != "holder_crashed":
		return false, "buyer-1 answered " + s.a + ", not holder_crashed"
	case !s.left.Present:
		return false, "no row after buyer-1's crash"
	}
	if s.ttlMS >= stuckTTLMS {
		for i, o := range s.others {
			if o != "lock_timeout" {
				return false, fmt.Sprintf("buyer-%d answered %s, not lock_timeout", i+2, o)
			}
		}
		switch {
		case s.got.Sold != 0:
			return false, fmt.Sprintf("sold %d behind the crashed holder's row", s.got.Sold)
		case !s.after.Present || s.after.Owner != s.left.Owner:
			return false, "the crashed holder's row is gone: " + s.after.String()
		}
		return true, ""
	}
	for i, o := range s.others {
		if o != shopapi.KindOrder {
			return false, fmt.Sprintf("buyer-%d answered %s, not an order", i+2, o)
		}
	}
	switch {
	case s.after.Present:
		return false, "a row is still there after the buyers: " + s.after.String()
	case s.got.Sold != int64(len(s.others)):
		return false, fmt.Sprintf("sold %d, not %d", s.got.Sold, len(s.others))
	case s.got.Oversold != 0 || s.got.Violations != 0:
		return false, fmt.Sprintf("oversold %d violations %d", s.got.Oversold, s.got.Violations)
	}
	return true, ""
}

// crashedHolder runs a crashed-holder case with the row's expiry ttlMS.
func (sc *scenarioRun) crashedHolder(ctx context.Context, ttlMS int) (crashSide, error) {
	s := crashSide{ttlMS: ttlMS}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario db-lock-crashed-holder: crashed holder",
		Strategy: "db-lock-table-plain", Stock: 5, TTLMS: ttlMS})
	if err != nil {
		return s, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.CrashAfterSetNX}); err != nil {
		return s, err
	}
	s.a = sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-1")
	if s.left, err = sc.LockRow(ctx, t1, v.ID); err != nil {
		return s, err
	}
	targets := []string{t1, sc.Last()}
	s.others, s.tookMS = make([]string, len(targets)), make([]int64, len(targets))
	done := make(chan struct{})
	for i, t := range targets {
		go func() {
			defer func() { done <- struct{}{} }()
			start := time.Now()
			s.others[i] = sc.C.Order(ctx, shopapi.OrdersURL(t, v.ID), fmt.Sprintf("buyer-%d", i+2))
			s.tookMS[i] = time.Since(start).Milliseconds()
		}()
	}
	for range targets {
		<-done
	}
	if s.after, err = sc.LockRow(ctx, t1, v.ID); err != nil {
		return s, err
	}
	s.got, err = sc.Settled(ctx, v.ID)
	return s, err
}

// slowSide is what a slow-holder case of db-lock-crashed-holder saw.
type slowSide struct {
	fencing bool
	before  lessons.LockRow // buyer-1's row, read while it was stalled
	// taken: a read while buyer-1 was still stalled found no row or
	// another owner's (takenBy, when one was seen).
	taken   bool
	takenBy string
	a, b    string
	bWhileA bool // buyer-1 was still stalled when buyer-2 had its answer
	got     shopapi.SaleView
}

// holds is slowSide's verdict, and why not: buyer-1's row went while it
// was stalled and buyer-2 was served then; unfenced buyer-1's stale write
// landed (an overlap counted), fenced it was refused.
func (s slowSide) holds() (bool, string) {
	switch {
	case !s.before.Present:
		return false, "no row of buyer-1's while it was stalled"
	case !s.taken:
		return false, "buyer-1's row stayed while it was stalled: no cleanup deleted it"
	case s.b != shopapi.KindOrder:
		return false, "buyer-2 answered " + s.b + ", not an order"
	case !s.bWhileA:
		return false, "buyer-2 was served only after buyer-1 woke"
	case s.got.Oversold != 0:
		return false, fmt.Sprintf("oversold %d", s.got.Oversold)
	}
	if !s.fencing {
		switch {
		case s.a != shopapi.KindOrder:
			return false, "buyer-1 answered " + s.a + ", not an order: its stale write did not land"
		case s.got.Violations < 1:
			return false, "violations 0: no overlap counted"
		}
		return true, ""
	}
	switch {
	case s.a != "fenced":
		return false, "buyer-1 answered " + s.a + ", not fenced"
	case s.got.FencedWrites < 1:
		return false, "no fenced write"
	case s.got.LostUpdates != 0:
		return false, fmt.Sprintf("%d lost updates under fencing", s.got.LostUpdates)
	}
	return true, ""
}

// slowHolder runs a slow-holder case: buyer-1 stalls 5 s inside, after
// its lease check, under a 1 s expiry; buyer-2, on the other replica,
// waits for the row and deletes it once expired. The row is read while
// buyer-1 is stalled (the stall brackets each read) until buyer-2 answers.
func (sc *scenarioRun) slowHolder(ctx context.Context, fencing bool) (slowSide, error) {
	s := slowSide{fencing: fencing}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario db-lock-crashed-holder: slow holder",
		Strategy: "db-lock-table-plain", Stock: 10, TTLMS: 1000, Fencing: fencing})
	if err != nil {
		return s, err
	}
	a, err := sc.StalledOrder(ctx, t1, v.ID, "buyer-1", 5000)
	if err != nil {
		return s, err
	}
	if s.before, err = sc.LockRow(ctx, t1, v.ID); err != nil {
		return s, err
	}
	b := sc.OrderAsync(ctx, sc.Last(), v.ID, "buyer-2")
	for s.b == "" {
		select {
		case s.b = <-b:
		default:
		}
		r, err := sc.LockRow(ctx, t1, v.ID)
		if err != nil {
			return s, err
		}
		n, err := sc.PausedHolders(ctx, t1)
		if err != nil {
			return s, err
		}
		if n == 0 {
			break // buyer-1 woke: later reads say nothing of its stall
		}
		if s.b != "" {
			s.bWhileA = true
		}
		if !r.Present || r.Owner != s.before.Owner {
			s.taken = true
			if r.Present {
				s.takenBy = r.Owner
			}
		}
		if err := load.Sleep(ctx, 20*time.Millisecond); err != nil {
			return s, err
		}
	}
	if s.b == "" {
		s.b = <-b
	}
	s.a = <-a
	s.got, err = sc.Settled(ctx, v.ID)
	return s, err
}
