package consistenthash_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/consistenthash"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// replica is one replica's strategy over its own view of the ring.
type replica struct {
	self   hashring.Member
	ring   *hashring.Membership
	locker *consistenthash.Locker
}

// replicas are n replicas on one ring: the live list is fixed (the
// heartbeats' stand-in), the departures are the database's ring_leaves.
func replicas(t *testing.T, db *gorm.DB, n int) []replica {
	t.Helper()
	var members []hashring.Member
	for i := 0; i < n; i++ {
		members = append(members, hashring.Member{ID: fmt.Sprintf("ch-%d-%d", time.Now().UnixNano()%1e9, i), URL: fmt.Sprintf("http://127.0.0.1:%d", 10+i)})
	}
	live := func(context.Context) ([]hashring.Member, error) { return members, nil }
	var out []replica
	for _, m := range members {
		ring := hashring.NewMembership(db, live)
		ring.SetSelf(m)
		out = append(out, replica{self: m, ring: ring, locker: consistenthash.New(ring)})
	}
	return out
}

// keyOwnedBy is a key r's view gives to r.
func keyOwnedBy(t *testing.T, r replica) string {
	t.Helper()
	v, err := r.ring.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if k := fmt.Sprintf("seckill:lock:sale:%d", i); v.Owns(k) {
			return k
		}
	}
	t.Fatalf("%s owns no key", r.self.ID)
	return ""
}

func lock(t *testing.T, r replica, key string) lockstrategy.Lease {
	t.Helper()
	le, err := r.locker.Lock(context.Background(), key)
	if err != nil {
		t.Fatalf("%s: %v", r.self.ID, err)
	}
	return le
}

// The owner locks, with tokens that grow; the other replica refuses and
// names the owner.
func TestOwnerLocksOthersRefuseNamingIt(t *testing.T) {
	rs := replicas(t, testenv.DB(t, "consistenthash"), 2)
	key := keyOwnedBy(t, rs[0])
	_, err := rs[1].locker.Lock(context.Background(), key)
	var no *lockstrategy.NotOwnerError
	if !errors.Is(err, lockstrategy.ErrNotOwner) || !errors.As(err, &no) || no.Owner != rs[0].self.ID || no.OwnerURL != rs[0].self.URL {
		t.Fatalf("non-owner's Lock: %v; want a NotOwnerError naming %s", err, rs[0].self.ID)
	}
	first := lock(t, rs[0], key)
	if err := first.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := lock(t, rs[0], key)
	defer second.Unlock(context.Background())
	if first.Token() == 0 || second.Token() <= first.Token() {
		t.Fatalf("tokens %d then %d: want them to grow", first.Token(), second.Token())
	}
}

// The pitfall at the strategy's level: the owner leaves the ring while its
// own view is stale, and both it and the new owner hold the lock at once.
// The new owner's token is the larger (its view is newer), which is what
// lets fencing refuse the old owner's write.
func TestRingChangeGivesTwoHoldersAndTheNewOwnerTheLargerToken(t *testing.T) {
	rs := replicas(t, testenv.DB(t, "consistenthash"), 2)
	key := keyOwnedBy(t, rs[0])
	if err := rs[0].ring.LeaveStale(context.Background(), 3*time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(hashring.Refresh + 100*time.Millisecond) // the other replica's view is read again
	oldOwner := lock(t, rs[0], key)
	defer oldOwner.Unlock(context.Background())
	newOwner := lock(t, rs[1], key) // held at the same time: two holders
	defer newOwner.Unlock(context.Background())
	if newOwner.Token() <= oldOwner.Token() {
		t.Fatalf("new owner's token %d not above the stale owner's %d", newOwner.Token(), oldOwner.Token())
	}
}
