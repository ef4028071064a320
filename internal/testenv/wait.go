package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test (naming what) once
// bound has passed, and returns how long it took. The poll starts at 5 ms
// and backs off to 100 ms: a quick condition is seen quickly, and a slow one
// (an HTTP listing, a database query) is not hammered.
func WaitFor(t testing.TB, bound time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for poll := 5 * time.Millisecond; !cond(); poll = min(2*poll, 100*time.Millisecond) {
		if time.Since(start) > bound {
			t.Fatalf("%s: not within %v", what, bound)
		}
		time.Sleep(poll)
	}
	return time.Since(start)
}
