package lockstrategy_test

// The conformance suite: every registered lock strategy, by name, against the
// real services. Each check returns nil when the lock behaved; the strategies
// known to be broken must FAIL the checks listed in expectedFailures, which
// proves the suite can catch a broken lock. The strategies that build no
// Locker (a LockFree, a Reserver) take no lock and are checked by the order
// tests instead.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// expectedFailures lists, per broken strategy, the checks it must fail.
var expectedFailures = map[string][]string{
	"none":           {"exclusion/goroutines", "exclusion/processes", "release-own", "ctx-cancel"},
	"mutex":          {"exclusion/processes"}, // an in-process lock does not cross processes
	"redis-no-owner": {"release-own"},         // DEL without owner check frees the next holder's lock
	// The suite's processes are no replicas (no heartbeats, no shared ring):
	// each is a ring of one and owns every key, so two of them both lock.
	// Across replicas its exclusion is the ring's agreement, which
	// internal/hashring and the consistenthash tests check, and which the
	// lesson consistent-hashing-ring-change breaks on purpose.
	"consistent-hash":    {"exclusion/processes"},
	"redis-setnx-expire": {"killed-holder"}, // a crash between SETNX and EXPIRE leaves a lock that never expires
	// FOR UPDATE in autocommit: the row lock ends with the SELECT, the lock excludes nothing
	"db-pessimistic-autocommit": {"exclusion/goroutines", "exclusion/processes", "release-own", "ctx-cancel"},
}

// check is one conformance property.
type check struct {
	name string
	// applies says whether the check means anything for s.
	applies func(s lockstrategy.Strategy) bool
	run     func(t *testing.T, s lockstrategy.Strategy, b lockstrategy.Backends) error
}

var checks = []check{
	{"exclusion/goroutines", always, checkExclusionGoroutines},
	{"exclusion/processes", always, checkExclusionProcesses},
	{"release-own", always, checkReleaseOwn},
	{"killed-holder", func(s lockstrategy.Strategy) bool {
		return s.Expiry != lockstrategy.ExpiryNone && s.Expiry != lockstrategy.ExpiryProcess
	}, checkKilledHolder},
	{"ctx-cancel", always, checkCtxCancel},
	{"reentrant", func(s lockstrategy.Strategy) bool { return s.Reentrant }, checkReentrant},
}

func always(lockstrategy.Strategy) bool { return true }

func TestConformance(t *testing.T) {
	b := testenv.Backends(t, "lockstrategy")
	b.ZKSessionTimeout = zkSessionTimeout
	for _, s := range lockstrategy.All() {
		if s.Kind() != lockstrategy.KindLock { // a LockFree or a Reserver takes no lock
			continue
		}
		l, err := s.NewLocker(b, lockstrategy.Options{})
		if err != nil {
			t.Fatalf("%s: build: %v", s.Name, err)
		}
		closeLocker(l)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel() // strategies mostly wait on I/O: overlap them
			for _, c := range checks {
				if !c.applies(s) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					err := c.run(t, s, b)
					wantFail := slices.Contains(expectedFailures[s.Name], c.name)
					switch {
					case wantFail && err == nil:
						t.Fatalf("%s is known to break %s, but the check passed: it cannot catch a broken lock", s.Name, c.name)
					case wantFail:
						t.Logf("caught, as expected: %v", err)
					case err != nil:
						t.Fatal(err)
					}
				})
			}
		})
	}
}

// TestExpectedFailuresNameRealThings keeps the table honest: every name in it
// is a registered strategy and a real check.
func TestExpectedFailuresNameRealThings(t *testing.T) {
	names := lockstrategy.Names()
	for s, cs := range expectedFailures {
		if !slices.Contains(names, s) {
			t.Errorf("expectedFailures names %q, which is not registered", s)
		}
		for _, c := range cs {
			if !slices.ContainsFunc(checks, func(k check) bool { return k.name == c }) {
				t.Errorf("expectedFailures[%s] names unknown check %q", s, c)
			}
		}
	}
}

func closeLocker(l any) {
	if c, ok := l.(io.Closer); ok {
		c.Close()
	}
}

// build returns s built with o, closed at cleanup.
func build(t *testing.T, s lockstrategy.Strategy, b lockstrategy.Backends, o lockstrategy.Options) lockstrategy.Locker {
	t.Helper()
	l, err := newLocker(s, b, o)
	if err != nil {
		t.Fatalf("build %s: %v", s.Name, err)
	}
	t.Cleanup(func() { closeLocker(l) })
	return l
}

// newLocker builds s with o, which must be a lock.
func newLocker(s lockstrategy.Strategy, b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
	if s.Kind() != lockstrategy.KindLock {
		return nil, fmt.Errorf("%s builds a %s, not a lock", s.Name, s.Kind())
	}
	return s.NewLocker(b, o)
}

// uniqueKey returns a key no earlier run used, so leftovers cannot interfere.
func uniqueKey(s lockstrategy.Strategy, c string) string {
	return fmt.Sprintf("conformance:%s:%s:%d", s.Name, c, time.Now().UnixNano())
}

// isGiveUp says err is a bounded wait that ended without the lock.
func isGiveUp(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lockstrategy.ErrNotAcquired)
}
