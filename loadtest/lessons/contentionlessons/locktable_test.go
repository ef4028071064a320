package contentionlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// db-lock-reentrant passes only on the row's evidence: on the plain table
// one row of one hold (buyer-1's) while its nested INSERT retries, gone
// after; on the counted table holds 2 at the nested hold, gone after the
// last unlock. Each broken condition fails it, naming why.
func TestDBLockReentrantHoldsOnlyOnTheRowsEvidence(t *testing.T) {
	plain := nestSide{strategy: "db-lock-table-plain", a: "nested_lock_timeout", b: shopapi.KindOrder,
		held: rowReads{reads: 40, owners: []string{"p1-x"}, minHolds: 1, maxHolds: 1},
		got:  shopapi.SaleView{Sold: 1}}
	counted := nestSide{strategy: "db-lock-table", counted: true, a: shopapi.KindOrder, b: shopapi.KindOrder,
		held: rowReads{reads: 3, owners: []string{"p1-hab"}, minHolds: 2, maxHolds: 2},
		got:  shopapi.SaleView{Sold: 2}}
	for _, s := range []nestSide{plain, counted} {
		if ok, why := s.holds(); !ok {
			t.Fatalf("%s: the row's evidence failed: %s", s.strategy, why)
		}
	}
	for _, tc := range []struct {
		name string
		side nestSide
		edit func(*nestSide)
		why  string
	}{
		{"plain: the nested lock went through", plain, func(s *nestSide) { s.a = shopapi.KindOrder }, "buyer-1"},
		{"plain: no row read while buyer-1 was inside", plain, func(s *nestSide) { s.held = rowReads{} }, "no read"},
		{"plain: the nested lock counted", plain, func(s *nestSide) { s.held.maxHolds = 2 }, "holds"},
		{"plain: a second owner", plain, func(s *nestSide) { s.held.owners = append(s.held.owners, "p1-y") }, "owner"},
		{"plain: the row outlived the order", plain, func(s *nestSide) { s.after = lessons.LockRow{Present: true, Owner: "p1-x", Holds: 1} }, "still there"},
		{"counted: the count never reached 2", counted, func(s *nestSide) { s.held.maxHolds, s.held.minHolds = 1, 1 }, "holds"},
		{"counted: no read at the nested hold", counted, func(s *nestSide) { s.held = rowReads{} }, "no read"},
		{"counted: the last unlock left the row", counted, func(s *nestSide) { s.after = lessons.LockRow{Present: true, Owner: "p1-hab", Holds: 1} }, "still there"},
		{"counted: buyer-2 not served", counted, func(s *nestSide) { s.b = "lock_timeout" }, "buyer-2"},
		{"counted: sold 1", counted, func(s *nestSide) { s.got.Sold = 1 }, "sold"},
		{"counted: an overlap", counted, func(s *nestSide) { s.got.Violations = 1 }, "violations"},
	} {
		s := tc.side
		s.held.owners = append([]string(nil), s.held.owners...)
		tc.edit(&s)
		ok, why := s.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// On the plain table the nested attempt's INSERT, cancelled at its
// timeout, can still land in the server once buyer-1's own row is gone
// (the lock deletes such a row within 2 s): a second owner while buyer-1's
// answer travels back, the same row read after it. Seen on a loaded make
// test. Such a round did not show the lesson; it is run again, never
// judged. A second owner that is not the row read after, the counted
// table, and one owner are no such round.
func TestDBLockReentrantStrayNestedRowIsRunAgain(t *testing.T) {
	stray := nestSide{strategy: "db-lock-table-plain", a: "nested_lock_timeout",
		held:  rowReads{reads: 39, owners: []string{"p1-a", "p1-b"}, minHolds: 1, maxHolds: 1},
		after: lessons.LockRow{Present: true, Owner: "p1-b", Holds: 1, ExpiresInMS: 14946}}
	if !stray.strayNestedRow() {
		t.Errorf("the cancelled nested INSERT's row, read while buyer-1 answered and after: not recognised")
	}
	// The INSERT can also land after the last read while buyer-1 was
	// inside (a fresh make test's CI run): one owner read, buyer-1's; after
	// it a row of another owner inserted once buyer-1's nested wait had
	// begun (its expiry within the wait of the 15 s TTL).
	late := stray
	late.held.owners = []string{"p1-a"}
	late.after = lessons.LockRow{Present: true, Owner: "p1-b", Holds: 1, ExpiresInMS: 14982}
	if !late.strayNestedRow() {
		t.Errorf("the cancelled nested INSERT's row, landed after the reads: not recognised")
	}
	for name, edit := range map[string]func(*nestSide){
		"one owner, after is buyer-1's own row": func(s *nestSide) { s.held.owners = []string{"p1-a"}; s.after.Owner = "p1-a" },
		"one owner, after is older than the nested wait": func(s *nestSide) {
			s.held.owners = []string{"p1-a"}
			s.after.ExpiresInMS = 12000
		},
		"after is another row": func(s *nestSide) { s.after.Owner = "p1-c" },
		"no row after":         func(s *nestSide) { s.after = lessons.LockRow{} },
		"the counted table":    func(s *nestSide) { s.counted, s.strategy = true, "db-lock-table" },
		"three owners":         func(s *nestSide) { s.held.owners = []string{"p1-a", "p1-c", "p1-b"} },
	} {
		s := stray
		s.held.owners = append([]string(nil), stray.held.owners...)
		edit(&s)
		if s.strayNestedRow() {
			t.Errorf("%s: taken for the nested attempt's stray row", name)
		}
	}
}

// db-lock-crashed-holder's crash cases pass only when the crashed holder's
// row is seen: with the far expiry it is still there after the buyers gave
// up (sold 0); with the 1 s expiry a waiter deleted it and the buyers
// bought. Each broken condition fails, naming why.
func TestCrashedHolderHoldsOnlyOnTheRowsEvidence(t *testing.T) {
	row := lessons.LockRow{Present: true, Owner: "p1-dead", Holds: 1, ExpiresInMS: 599_000}
	stuck := crashSide{ttlMS: 600_000, a: "holder_crashed", left: row, others: []string{"lock_timeout", "lock_timeout"},
		after: row}
	freed := crashSide{ttlMS: 1000, a: "holder_crashed", left: lessons.LockRow{Present: true, Owner: "p1-dead", Holds: 1, ExpiresInMS: 900},
		others: []string{shopapi.KindOrder, shopapi.KindOrder}, got: shopapi.SaleView{Sold: 2}}
	for _, s := range []crashSide{stuck, freed} {
		if ok, why := s.holds(); !ok {
			t.Fatalf("ttl %d: the row's evidence failed: %s", s.ttlMS, why)
		}
	}
	for _, tc := range []struct {
		name string
		side crashSide
		edit func(*crashSide)
		why  string
	}{
		{"no crash", stuck, func(s *crashSide) { s.a = shopapi.KindOrder }, "buyer-1"},
		{"no row after the crash", stuck, func(s *crashSide) { s.left = lessons.LockRow{} }, "no row"},
		{"stuck: a buyer got in", stuck, func(s *crashSide) { s.others[1] = shopapi.KindOrder }, "lock_timeout"},
		{"stuck: a sale", stuck, func(s *crashSide) { s.got.Sold = 1 }, "sold"},
		{"stuck: the row went", stuck, func(s *crashSide) { s.after = lessons.LockRow{} }, "gone"},
		{"stuck: another holder's row", stuck, func(s *crashSide) { s.after.Owner = "p2-live" }, "gone"},
		{"freed: a buyer gave up", freed, func(s *crashSide) { s.others[0] = "lock_timeout" }, "order"},
		{"freed: the row stayed", freed, func(s *crashSide) { s.after = lessons.LockRow{Present: true, Owner: "p1-dead", Holds: 1} }, "still there"},
		{"freed: sold 1", freed, func(s *crashSide) { s.got.Sold = 1 }, "sold"},
		{"freed: an overlap", freed, func(s *crashSide) { s.got.Violations = 1 }, "violations"},
	} {
		s := tc.side
		s.others = append([]string(nil), s.others...)
		tc.edit(&s)
		ok, why := s.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// The slow-holder cases pass only when buyer-1's row is seen gone while it
// is still stalled and buyer-2 is served then: unfenced, buyer-1's stale
// write lands (violations >= 1); fenced, it is refused. Each broken
// condition fails, naming why.
func TestSlowHolderHoldsOnlyOnTheRowsEvidence(t *testing.T) {
	unfenced := slowSide{before: lessons.LockRow{Present: true, Owner: "p1-slow", Holds: 1}, taken: true, takenBy: "p2-next",
		a: shopapi.KindOrder, b: shopapi.KindOrder, bWhileA: true, got: shopapi.SaleView{Sold: 2, Violations: 1, LostUpdates: 1}}
	fenced := unfenced
	fenced.fencing, fenced.a, fenced.got = true, "fenced", shopapi.SaleView{Sold: 1, Violations: 1, FencedWrites: 1}
	for _, s := range []slowSide{unfenced, fenced} {
		if ok, why := s.holds(); !ok {
			t.Fatalf("fencing %v: the row's evidence failed: %s", s.fencing, why)
		}
	}
	for _, tc := range []struct {
		name string
		side slowSide
		edit func(*slowSide)
		why  string
	}{
		{"no row of buyer-1's", unfenced, func(s *slowSide) { s.before = lessons.LockRow{} }, "no row"},
		{"the row stayed while buyer-1 stalled", unfenced, func(s *slowSide) { s.taken = false }, "stayed"},
		{"buyer-2 after buyer-1", unfenced, func(s *slowSide) { s.bWhileA = false }, "after buyer-1"},
		{"buyer-2 not served", unfenced, func(s *slowSide) { s.b = "lock_timeout" }, "buyer-2"},
		{"no overlap counted", unfenced, func(s *slowSide) { s.got.Violations = 0 }, "violations"},
		{"buyer-1's write refused unfenced", unfenced, func(s *slowSide) { s.a = "lock_lost" }, "buyer-1"},
		{"fenced: buyer-1's write landed", fenced, func(s *slowSide) { s.a = shopapi.KindOrder }, "buyer-1"},
		{"fenced: no fenced write", fenced, func(s *slowSide) { s.got.FencedWrites = 0 }, "fenced"},
		{"fenced: a lost update", fenced, func(s *slowSide) { s.got.LostUpdates = 1 }, "lost"},
		{"fenced: the row stayed", fenced, func(s *slowSide) { s.taken = false }, "stayed"},
	} {
		s := tc.side
		tc.edit(&s)
		ok, why := s.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
