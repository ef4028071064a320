package order_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/internal/verdict"
)

// TestPausePastTTL: buyer A takes a db-lock-table lock (TTL 300 ms) and
// stalls 6 s before writing; buyer B reclaims the expired lock meanwhile and
// buys. Without fencing both writes land (a lost update, and the detector sees
// the overlap); with fencing A's stale write is rejected and counted.
func TestPausePastTTL(t *testing.T) {
	store, lockers, svc := newService(t, "fence")

	for _, fencing := range []bool{false, true} {
		ctx := context.Background()
		sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("pause"), Strategy: new("db-lock-table"),
			Stock: new(int64(10)), TTLMS: new(int64(300)), Fencing: &fencing, PerUserLimit: new(int64(0))})
		// A holds the lock, stalled; B waits for A's row to expire (300 ms)
		// and takes the lock while A still sleeps. On a loaded machine A's
		// 300 ms may run out before it reaches the stall (it then stops
		// with lock_lost, having written nothing): it tries again.
		errA := stallA(t, svc, sale.ID)
		// B's 300 ms may run out too before its write (lock_lost, nothing
		// written): it tries again while A is still stalled.
		var errB error
		for attempt := 0; attempt < 5; attempt++ {
			if _, errB = svc.Place(ctx, sale.ID, "B"); !errors.Is(errB, order.ErrLockLost) {
				break
			}
		}
		aErr := <-errA // A must be done before the test can end: its section is recorded on the service
		if errB != nil {
			t.Fatalf("fencing=%v: B: %v", fencing, errB)
		}
		svc.Flush()
		got, _ := store.GetSale(ctx, sale.ID)
		v, err := store.View(ctx, got)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("fencing=%v: A: %v; sold %d, stock %d, lost updates %d, violations %d, fenced writes %d",
			fencing, aErr, v.Sold, v.Stock, v.LostUpdates, v.Violations, v.FencedWrites)
		if v.Violations < 1 {
			t.Errorf("fencing=%v: the overlap of A and B was not detected", fencing)
		}
		if !fencing {
			if aErr != nil || v.Sold != 2 || v.LostUpdates != 1 {
				t.Errorf("without fencing the stale write should land and lose B's update: A=%v %+v", aErr, v.Stats)
			}
			if v.Verdict.Kind != verdict.Broken {
				t.Errorf("an unfenced lost update must read broken: %+v", v.Verdict)
			}
			continue
		}
		if !errors.Is(aErr, order.ErrFenced) || v.Sold != 1 || v.Stock != 9 || v.LostUpdates != 0 || v.FencedWrites != 1 {
			t.Errorf("with fencing A's stale write must be rejected and counted: A=%v %+v stock %d", aErr, v.Stats, v.Stock)
		}
		// The view's verdict: the lock overlapped, fencing kept the data safe.
		if v.Verdict.Kind != verdict.OverlappedSafe || !strings.Contains(v.Verdict.ReasonEn, "fencing refused 1 stale write") {
			t.Errorf("a fenced overlap with no damage must read overlapped_safe with its fenced write: %+v", v.Verdict)
		}
	}
}

// TestFencedStaleWriteBetweenReadAndWrite: fencing that only checks the token at the write lets a stale holder's write land
// between a newer holder's read and write. A (older token) reads the stock
// and stalls after its Lost() check; its lock row expires; B (newer token)
// reads the same stock and stalls too; A wakes and writes stock-1; B wakes
// and writes stock-1 on top: two orders, one unit taken. The fence claimed
// before the read makes A's write fail instead.
func TestFencedStaleWriteBetweenReadAndWrite(t *testing.T) {
	store, lockers, svc := newService(t, "fence-rw")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("fence read-write"), Strategy: new("db-lock-table"),
		Stock: new(int64(10)), TTLMS: new(int64(300)), Fencing: new(true), PerUserLimit: new(int64(0))})
	// On a loaded machine either buyer's 300 ms lease may run out before it
	// reaches its stall (lock_lost, nothing written): it tries again.
	errA := stallBuyer(t, svc, sale.ID, "A", 6*time.Second, 1)
	errB := stallBuyer(t, svc, sale.ID, "B", 9*time.Second, 2) // gets the lock once A's row expires (300 ms), reads, stalls
	if len(errA) > 0 {
		t.Fatal("A woke before B had read the stock: the interleaving was not built (a machine stalled for 6 s?)")
	}
	aErr, bErr := <-errA, <-errB
	svc.Flush()
	got, _ := store.GetSale(ctx, sale.ID)
	v, err := store.View(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("A: %v; B: %v; sold %d, stock %d, lost updates %d, fenced writes %d", aErr, bErr, v.Sold, v.Stock, v.LostUpdates, v.FencedWrites)
	if !errors.Is(aErr, order.ErrFenced) || bErr != nil || v.Sold != 1 || v.Stock != 9 || v.LostUpdates != 0 {
		t.Errorf("a fenced sale lost an update: A's stale write must be refused and B's land (A %v, B %v, sold %d, stock %d, lost %d)",
			aErr, bErr, v.Sold, v.Stock, v.LostUpdates)
	}
}

// stallA starts buyer A with the next section stalled for 6 s (room for
// B's retries on a loaded machine) and returns once A is stalled inside its
// section, holding the lock; A's result comes on the channel.
func stallA(t *testing.T, svc *order.Service, saleID uint64) chan error {
	t.Helper()
	return stallBuyer(t, svc, saleID, "A", 6*time.Second, 1)
}

// stallBuyer starts user's order with the next section stalled for pause
// and returns once `paused` sections are stalled (this one among them),
// holding the lock; the order's result comes on the channel. A buyer that
// lost its lease before the stall point (its TTL ran out on a loaded
// machine: ErrLockLost, nothing written) tries again.
func stallBuyer(t *testing.T, svc *order.Service, saleID uint64, user string, pause time.Duration, paused int64) chan error {
	t.Helper()
	for attempt := 1; ; attempt++ {
		points(svc).PauseNextSection(pause)
		errA := make(chan error, 1)
		go func() {
			_, err := svc.Place(context.Background(), saleID, user)
			errA <- err
		}()
		var early error
		returned := false
		testenv.WaitFor(t, 30*time.Second, user+" stalled inside its section (or back)", func() bool {
			if points(svc).Stalled() == paused {
				return true
			}
			select {
			case early = <-errA:
				returned = true
				return true
			default:
				return false
			}
		})
		if !returned {
			return errA
		}
		if !errors.Is(early, order.ErrLockLost) || attempt == 5 {
			t.Fatalf("%s returned before its stall (attempt %d): %v", user, attempt, early)
		}
	}
}
