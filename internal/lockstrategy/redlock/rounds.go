package redlock

import (
	"sync/atomic"

	"github.com/go-redsync/redsync/v4"
)

// Rounds counts the quorum rounds of one Locker's acquisitions: a round is
// one SET NX PX of a fresh value sent to every master at once (one redsync
// TryLock).
type Rounds struct {
	// Acquisitions is the number of Locks that got the lock.
	Acquisitions int64 `json:"acquisitions"`
	// Rounds is the number of rounds those acquisitions took, the winning
	// one included: Rounds/Acquisitions is the rounds per acquisition.
	Rounds int64 `json:"rounds"`
	// Split is the number of failed quorum rounds: rounds in which this
	// contender won at least one master's vote but not a quorum, the other
	// votes having gone to other contenders. Each is a moment when the lock
	// was free on a master and nobody took it.
	Split int64 `json:"split"`
}

// PerAcquisition is Rounds/Acquisitions (0 before the first).
func (r Rounds) PerAcquisition() float64 {
	if r.Acquisitions == 0 {
		return 0
	}
	return float64(r.Rounds) / float64(r.Acquisitions)
}

// Sub is r minus an earlier reading of the same Locker.
func (r Rounds) Sub(earlier Rounds) Rounds {
	return Rounds{Acquisitions: r.Acquisitions - earlier.Acquisitions, Rounds: r.Rounds - earlier.Rounds, Split: r.Split - earlier.Split}
}

// roundCounters are a Locker's Rounds, counted as its Locks go. Rounds of a
// Lock that gave up (ctx ended) are not counted: they bought nothing.
type roundCounters struct {
	acquisitions, rounds, split atomic.Int64
}

func (c *roundCounters) read() Rounds {
	return Rounds{Acquisitions: c.acquisitions.Load(), Rounds: c.rounds.Load(), Split: c.split.Load()}
}

// votes is how many masters said yes in a failed round of masters masters,
// read from the error redsync returned: every master that did not answer
// (a RedisError) or held another value (ErrNodeTaken, or ErrTaken's nodes
// when a quorum did) voted no. ErrFailed alone is a quorum too late to
// leave any validity: the votes are taken as a quorum.
func votes(err error, masters int) int {
	no := 0
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *redsync.ErrTaken:
			no += len(e.Nodes)
		case *redsync.ErrNodeTaken, *redsync.RedisError:
			no++
		case interface{ Unwrap() []error }: // errors.Join of the masters' answers
			for _, x := range e.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return masters - no
}
