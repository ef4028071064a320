package locktest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// chanLocker is a real in-process lock (a one-slot channel) that honours ctx.
type chanLocker struct{ slot chan struct{} }

func (c chanLocker) Lock(ctx context.Context, _ string) (lockstrategy.Lease, error) {
	select {
	case c.slot <- struct{}{}:
		return chanLease(c), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type chanLease chanLocker

func (chanLease) Token() uint64                  { return 0 }
func (chanLease) Lost() <-chan struct{}          { return lockstrategy.NeverLost() }
func (c chanLease) Unlock(context.Context) error { <-c.slot; return nil }

// noLocker takes no lock at all.
type noLocker struct{}

func (noLocker) Lock(context.Context, string) (lockstrategy.Lease, error) {
	return lockstrategy.NopLease(), nil
}

// The harness sees overlaps exactly when the lock does not exclude, counts
// every section, and records a wait for each.
func TestRunContentionSeesOverlapsOnlyWithoutALock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		l      lockstrategy.Locker
		broken bool
	}{
		{"chan", chanLocker{make(chan struct{}, 1)}, false},
		{"none", noLocker{}, true},
	} {
		r := RunContention(tc.l, "k", 4, time.Millisecond, 200*time.Millisecond)
		var sum int64
		for _, n := range r.PerWorker {
			sum += n
		}
		t.Logf("%s: %d sections, %d overlaps, %d overtakes, p99 %.2fms", tc.name, r.Ops, r.Overlaps, r.Overtakes, r.WaitMs(99))
		if r.Ops == 0 || sum != r.Ops || r.Errs != 0 {
			t.Errorf("%s: %d sections, per contender sum %d, %d errors", tc.name, r.Ops, sum, r.Errs)
		}
		if r.Wait.TotalCount() < r.Ops {
			t.Errorf("%s: %d waits recorded for %d sections", tc.name, r.Wait.TotalCount(), r.Ops)
		}
		if tc.broken != (r.Overlaps > 0) {
			t.Errorf("%s: %d overlaps; want overlaps exactly for the broken lock", tc.name, r.Overlaps)
		}
	}
}

// A held lock makes waiters wait: with 1 ms sections and 4 contenders, the
// median wait is at least one section.
func TestRunContentionMeasuresWaits(t *testing.T) {
	r := RunContention(chanLocker{make(chan struct{}, 1)}, "k", 4, 2*time.Millisecond, 200*time.Millisecond)
	if r.WaitMs(50) < 1 {
		t.Errorf("median wait %.3fms with 4 contenders on 2 ms sections; want >= 1ms", r.WaitMs(50))
	}
}

func TestArrivalsOvertake(t *testing.T) {
	a := &arrivals{pending: map[uint64]struct{}{}}
	first, second := a.arrive(), a.arrive()
	if !a.served(second) {
		t.Error("second served while first waits: want an overtake")
	}
	if a.served(first) {
		t.Error("first served with nobody earlier waiting: want no overtake")
	}
	third := a.arrive()
	a.abandon(third)
	if len(a.pending) != 0 {
		t.Errorf("pending %v after all served or abandoned", a.pending)
	}
}

func TestPrintTableAndRatios(t *testing.T) {
	mk := func(name string, ops int64, waitUs int64) Result {
		r := Result{Strategy: name, Contenders: 64, Work: time.Millisecond, Ops: ops, Elapsed: time.Second,
			Wait: hdrhistogram.New(1, 1e6, 3)}
		_ = r.Wait.RecordValue(waitUs)
		return r
	}
	rs := []Result{mk("redis", 900, 100), mk(PeerRedsync, 1000, 10000)}
	got := Ratios(rs, "redis", PeerRedsync, 64, time.Millisecond)
	if len(got) != 1 || got[0].Throughput < 0.89 || got[0].Throughput > 0.91 || got[0].P99Wait > 0.011 {
		t.Fatalf("ratios %+v; want throughput 0.9, p99 0.01", got)
	}
	var buf bytes.Buffer
	PrintTable(&buf, rs)
	PrintRatios(&buf, rs, "redis", PeerRedsync, 64, []time.Duration{time.Millisecond})
	out := buf.String()
	for _, want := range []string{"| strategy |", "| redis | 64 | 1ms | 900 |", "overlaps |", "median 0.90"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestWindowFromEnv(t *testing.T) {
	t.Setenv(EnvWindow, "")
	if Window() != DefaultWindow {
		t.Errorf("unset: %v, want %v", Window(), DefaultWindow)
	}
	t.Setenv(EnvWindow, "750ms")
	if Window() != 750*time.Millisecond {
		t.Errorf("750ms: got %v", Window())
	}
	t.Setenv(EnvWindow, "bogus")
	if Window() != DefaultWindow {
		t.Errorf("bogus: %v, want the default", Window())
	}
}
