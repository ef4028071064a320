package etcdlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/mod/semver"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func newLocker(t *testing.T, o lockstrategy.Options) *Locker {
	t.Helper()
	l, err := New(testenv.Etcd(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestClientSpeaksToTheServer: the client is v3.5 and Debian's server 3.4;
// etcd supports a client one minor version ahead of its server on the v3
// API (the KV, lease and watch calls this strategy makes). Anything else
// fails here, by name, before a lock misbehaves.
func TestClientSpeaksToTheServer(t *testing.T) {
	l := newLocker(t, lockstrategy.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := l.Client().Status(ctx, l.Client().Endpoints()[0])
	if err != nil {
		t.Fatal(err)
	}
	server, client := "v"+st.Version, "v"+version.Version
	t.Logf("etcd server %s, client %s", server, client)
	if semver.Major(server) != "v3" || semver.Major(client) != "v3" {
		t.Fatalf("server %s / client %s: the v3 API needs both at major version 3", server, client)
	}
	if semver.Compare(semver.MajorMinor(server), "v3.4") < 0 {
		t.Fatalf("server %s is older than 3.4, the oldest this strategy was checked against", server)
	}
	sMinor, cMinor := minor(server), minor(client)
	if cMinor < sMinor || cMinor-sMinor > 1 {
		t.Fatalf("client %s and server %s: supported pairs are the same minor version or a client one minor ahead", client, server)
	}
}

func minor(v string) int {
	mm := strings.TrimPrefix(semver.MajorMinor(v), "v3.")
	n := 0
	for _, c := range mm {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestLeaseExpiryLosesTheLockAndTheTokenFencesIt: a holder that stops
// renewing (a pause past its lease, here the watchdog off) loses its key
// when the lease ends; Lost() closes; the next holder's token, its key's
// create revision, is greater, so a store that records the greatest token
// seen refuses the stale holder's write.
func TestLeaseExpiryLosesTheLockAndTheTokenFencesIt(t *testing.T) {
	stale := newLocker(t, lockstrategy.Options{TTL: time.Second, NoRenewal: true})
	fresh := newLocker(t, lockstrategy.Options{TTL: 10 * time.Second})
	key := locktest.Key(t)
	a, err := locktest.LockWithin(stale, key, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := locktest.LockWithin(fresh, key, 30*time.Second) // free once A's lease ends
	if err != nil {
		t.Fatalf("B after A's lease ended: %v", err)
	}
	select {
	case <-a.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("A's Lost() did not close after its lease ended")
	}
	if b.Token() <= a.Token() {
		t.Fatalf("B's token %d is not above A's %d: a fence could not refuse A", b.Token(), a.Token())
	}
	if err := locktest.Unlock(a); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("A's Unlock after its lease ended: %v, want ErrNotHeld", err)
	}
	// A's stale Unlock did not free B's lock.
	if c, err := locktest.LockWithin(fresh, key, 500*time.Millisecond); err == nil {
		locktest.Unlock(c)
		t.Fatal("C took the lock B holds")
	}
	if err := locktest.Unlock(b); err != nil {
		t.Fatal(err)
	}
}

// TestTokensGrowInHolderOrder: holders queued on one key get the lock in
// the order of their keys and each token is above the one before.
func TestTokensGrowInHolderOrder(t *testing.T) {
	l := newLocker(t, lockstrategy.Options{})
	key := locktest.Key(t)
	var last uint64
	for i := 0; i < 5; i++ {
		le, err := locktest.LockWithin(l, key, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if le.Token() <= last {
			t.Fatalf("acquisition %d: token %d not above %d", i, le.Token(), last)
		}
		last = le.Token()
		if err := locktest.Unlock(le); err != nil {
			t.Fatal(err)
		}
	}
}

// A lease that runs out around the Mutex (a process stopped right there) is
// a lock not acquired (ErrNotAcquired: 503 lock_timeout, retry), not an
// unknown failure: before its key is put the server answers "requested
// lease not found", after it our key is gone when we read it. A chaos
// run's stop_process met both, and each order was a 500. The next Lock
// works.
func TestLeaseGoneAroundTheMutexIsNotAcquired(t *testing.T) {
	revoke := func(l *Locker) func(clientv3.LeaseID) {
		return func(id clientv3.LeaseID) {
			if _, err := l.cli.Revoke(context.Background(), id); err != nil {
				t.Error(err)
			}
		}
	}
	for _, point := range []string{"before the put", "before the read"} {
		l := newLocker(t, lockstrategy.Options{TTL: 2 * time.Second})
		if point == "before the put" {
			l.beforeQueue = revoke(l)
		} else {
			l.afterQueue = revoke(l)
		}
		if _, err := l.Lock(context.Background(), locktest.Key(t)); !errors.Is(err, lockstrategy.ErrNotAcquired) {
			t.Errorf("lease revoked %s: %v, want ErrNotAcquired", point, err)
		}
		l.beforeQueue, l.afterQueue = nil, nil
		le, err := l.Lock(context.Background(), locktest.Key(t))
		if err != nil {
			t.Fatalf("the next Lock: %v", err)
		}
		le.Unlock(context.Background())
	}
}
