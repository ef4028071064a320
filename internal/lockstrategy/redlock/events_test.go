package redlock

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// events collects the lease events told to its observer.
type events struct {
	mu   sync.Mutex
	seen []string
}

func (e *events) observe(le lockstrategy.LeaseEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, le.Event)
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// A redlock lease tells its observer how it ended as the redis lease does:
// lost when a renewal (an extension) reached no quorum, expired when,
// without renewal, the validity counted on the client's clock ran out.
func TestLeaseEventsSayHowItEnded(t *testing.T) {
	masters := testenv.Redlock(t)
	const ttl = 600 * time.Millisecond
	for _, tc := range []struct {
		name      string
		noRenewal bool
		want      string
	}{
		{"renewal without quorum", false, lockstrategy.LeaseLost},
		{"validity ran out", true, lockstrategy.LeaseExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLocker(t, masters, lockstrategy.Options{TTL: ttl, NoRenewal: tc.noRenewal})
			key := locktest.Key(t)
			var ev events
			ctx, cancel := context.WithTimeout(lockstrategy.WithLeaseObserver(context.Background(), ev.observe), 5*time.Second)
			defer cancel()
			le, err := l.Lock(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			defer locktest.Unlock(le)
			if !tc.noRenewal {
				for _, m := range masters[:2] { // a majority forgets the lock: the next extension finds no quorum
					if err := m.Del(context.Background(), keyPrefix+key).Err(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !locktest.ClosedWithin(le.Lost(), ttl+time.Second) {
				t.Fatal("Lost not closed")
			}
			if got := ev.list(); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("events %v, want [%s]", got, tc.want)
			}
		})
	}
}
