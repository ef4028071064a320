package redlock

import (
	"errors"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
)

// votes reads a failed round's yes votes from the error redsync built of
// the masters' answers, as actOnPoolsAsync builds it.
func TestVotesReadsTheMastersAnswers(t *testing.T) {
	down := &redsync.RedisError{Node: 2, Err: errors.New("connection refused")}
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"taken on a quorum", &redsync.ErrTaken{Nodes: []int{0, 1, 2}}, 0},
		{"taken on two, one vote ours", &redsync.ErrTaken{Nodes: []int{0, 2}}, 1},
		{"split: one taken, one down, one ours", errors.Join(&redsync.ErrNodeTaken{Node: 0}, down), 1},
		{"one taken elsewhere, two ours but too late", errors.Join(&redsync.ErrNodeTaken{Node: 1}), 2},
		{"a quorum too late to leave validity", redsync.ErrFailed, 3},
		{"all down", errors.Join(down, down, down), 0},
	} {
		if got := votes(c.err, 3); got != c.want {
			t.Errorf("%s: votes %d, want %d", c.name, got, c.want)
		}
	}
}

// The backoff after n failed rounds in a row: 1 ms plus up to 4 ms after
// the first, doubling, never past the 100 ms cap however many.
func TestSplitBackoffGrowsToItsCap(t *testing.T) {
	for _, c := range []struct {
		n       int64
		below   time.Duration
		reaches time.Duration // some draw of 2,000 goes past it
	}{
		{1, 5 * time.Millisecond, 3 * time.Millisecond},
		{3, 17 * time.Millisecond, 12 * time.Millisecond},
		{20, 101 * time.Millisecond, 80 * time.Millisecond},
		{1 << 40, 101 * time.Millisecond, 80 * time.Millisecond},
	} {
		var most time.Duration
		for range 2000 {
			d := splitBackoff(c.n)
			if d < time.Millisecond || d >= c.below {
				t.Fatalf("splitBackoff(%d) = %v, want within [1ms, %v)", c.n, d, c.below)
			}
			most = max(most, d)
		}
		if most < c.reaches {
			t.Fatalf("splitBackoff(%d): at most %v in 2,000 draws, want some past %v", c.n, most, c.reaches)
		}
	}
}

// A round that met another contender's key on one master while another
// master was down is contention, not unreachable masters: redsync joins
// *ErrNodeTaken values, which a value-typed errors.As target never matched.
func TestContendedSeesOneTakenMaster(t *testing.T) {
	down := &redsync.RedisError{Node: 2, Err: errors.New("connection refused")}
	if !contended(errors.Join(&redsync.ErrNodeTaken{Node: 0}, down)) {
		t.Fatal("one master taken, one down: not counted as contention")
	}
	if contended(errors.Join(down, down)) {
		t.Fatal("masters down only: counted as contention")
	}
}
