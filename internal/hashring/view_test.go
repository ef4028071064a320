package hashring_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	. "github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// clock is a Membership's time, moved by the test: a refresh happens when
// the test says so, not when the machine gets round to it.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Now()} }

// cluster is the live replicas as the tests say (the heartbeats' stand-in):
// a list they change, read by every view.
type cluster struct{ members []Member }

func (c *cluster) live(context.Context) ([]Member, error) {
	return append([]Member(nil), c.members...), nil
}

// join adds n replicas with ids no other test (or earlier run) uses and
// returns their views, each on a clock of its own.
func (c *cluster) join(t *testing.T, db *gorm.DB, n int) (views []*Membership, clocks []*clock, ids []string) {
	t.Helper()
	for i := 0; i < n; i++ {
		m := Member{ID: fmt.Sprintf("%s-%d-%d", t.Name(), time.Now().UnixNano()%1e6, i), URL: fmt.Sprintf("http://127.0.0.1:%d", 1+i)}
		c.members = append(c.members, m)
		ids = append(ids, m.ID)
		clk := newClock()
		ms := NewMembership(db, c.live)
		ms.SetClock(clk.now)
		ms.SetSelf(m)
		views, clocks = append(views, ms), append(clocks, clk)
	}
	return views, clocks, ids
}

// keyOwnedBy finds a key that view's ring gives to its own replica.
func keyOwnedBy(t *testing.T, v View) string {
	for i := 0; i < 1000; i++ {
		if k := fmt.Sprintf("seckill:lock:sale:%d", i); v.Owns(k) {
			return k
		}
	}
	t.Fatalf("%s owns none of 1000 keys", v.Self.ID)
	return ""
}

func current(t *testing.T, m *Membership) View {
	t.Helper()
	v, err := m.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The pitfall: a replica leaves the ring while its own view stays stale.
// For the moment both it and the new owner believe they own the sale; the
// new owner's epoch is the newer one (what fencing relies on). Once the
// departure ends, everyone agrees again, and the rejoined replica's view
// is newer than the one the interim owner had: its members read the same
// as the view it held, yet it was out of the ring in between, and with its
// old epoch the fence the interim owner claimed would refuse it.
func TestLeavingWithAStaleViewMakesTwoOwners(t *testing.T) {
	db := testenv.DB(t, "hashring")
	views, clocks, _ := new(cluster).join(t, db, 2)
	a, b := views[0], views[1]
	key := keyOwnedBy(t, current(t, a))
	va, vb := current(t, a), current(t, b)
	if !va.Owns(key) || vb.Owns(key) {
		t.Fatalf("before: %s owns %v, %s owns %v; want the first only", va.Self.ID, va.Owns(key), vb.Self.ID, vb.Owns(key))
	}
	const leave = 1500 * time.Millisecond
	if err := a.LeaveStale(context.Background(), leave); err != nil {
		t.Fatal(err)
	}
	clocks[0].advance(Refresh)
	clocks[1].advance(Refresh)
	va, vb = current(t, a), current(t, b)
	if !va.Owns(key) || !vb.Owns(key) {
		t.Fatalf("during: %s owns %v (stale until %v), %s owns %v; want both", va.Self.ID, va.Owns(key), va.StaleUntil, vb.Self.ID, vb.Owns(key))
	}
	if va.StaleUntil == nil || vb.Epoch <= va.Epoch {
		t.Fatalf("during: stale view %+v, new owner's epoch %d not above the stale one's %d", va.StaleUntil, vb.Epoch, va.Epoch)
	}
	interim := vb.Epoch
	time.Sleep(leave) // ring_leaves ends by the database's clock
	clocks[0].advance(leave)
	clocks[1].advance(leave)
	va, vb = current(t, a), current(t, b)
	if !va.Owns(key) || vb.Owns(key) || va.StaleUntil != nil {
		t.Fatalf("after: %s owns %v, %s owns %v; want the first only again", va.Self.ID, va.Owns(key), vb.Self.ID, vb.Owns(key))
	}
	if va.Epoch <= interim {
		t.Fatalf("after: the rejoined owner's epoch %d is not above the interim owner's %d", va.Epoch, interim)
	}
}

// A view is read again only after Refresh: the staleness is bounded, and
// not zero.
func TestViewRefreshesAfterRefresh(t *testing.T) {
	db := testenv.DB(t, "hashring")
	c := new(cluster)
	views, clocks, _ := c.join(t, db, 1)
	before := current(t, views[0])
	_, _, more := c.join(t, db, 1)
	if v := current(t, views[0]); len(v.Members) != len(before.Members) {
		t.Fatalf("the view changed before Refresh: %v -> %v", before.Members, v.Members)
	}
	clocks[0].advance(Refresh)
	v := current(t, views[0])
	found := false
	for _, m := range v.Members {
		found = found || m.ID == more[0]
	}
	if !found || v.Epoch <= before.Epoch {
		t.Fatalf("after Refresh the newcomer %s is missing or the epoch did not grow: %+v", more[0], v)
	}
}
