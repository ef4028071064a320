package zklock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestSessionExpiryLosesLease expires the holder's session from outside (a
// second connection with its id and password closes it): Lost closes, the
// next Locker takes the lock, and the old Locker works on in a new session.
func TestSessionExpiryLosesLease(t *testing.T) {
	a, b := newLocker(t, 0), newLocker(t, 0)
	key := locktest.Key(t)
	le, err := locktest.LockWithin(a, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	oldSession, oldPassword := a.SessionID(), a.SessionPassword()
	if len(oldPassword) == 0 {
		t.Fatal("no session password captured")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.ExpireSession(ctx); err != nil {
		t.Fatal(err)
	}
	expired := time.Now()
	select {
	case <-le.Lost():
		t.Logf("Lost closed %v after the session was closed", time.Since(expired))
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after the session expired")
	}
	a.mu.Lock()
	gen := a.gen
	a.mu.Unlock()
	if gen == 0 {
		t.Fatal("Lost closed, but not by the StateExpired event")
	}
	other, err := locktest.LockWithin(b, key, 5*time.Second)
	if err != nil {
		t.Fatalf("another session could not take the lock of an expired one: %v", err)
	}
	if other.Token() <= le.Token() {
		t.Fatalf("token %d after %d", other.Token(), le.Token())
	}
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("Unlock of the expired lease: %v, want ErrNotHeld", err)
	}
	if err := locktest.Unlock(other); err != nil {
		t.Fatal(err)
	}
	// Expiring a session that is already gone is not an error.
	if err := ExpireSession(ctx, a.servers[0], oldSession, oldPassword); err != nil {
		t.Fatalf("expire an expired session: %v", err)
	}
	again, err := locktest.LockWithin(a, key, 5*time.Second)
	if err != nil {
		t.Fatalf("the Locker did not recover with a new session: %v", err)
	}
	if id := a.SessionID(); id == oldSession || id == 0 {
		t.Fatalf("session id %d after expiry of %d", id, oldSession)
	}
	if err := locktest.Unlock(again); err != nil {
		t.Fatal(err)
	}
}

// TestDisconnectedTooLongLosesLease drives the session events the client
// would send during a partition: a disconnection longer than a third of the
// session timeout loses the lease; a short one does not.
func TestDisconnectedTooLongLosesLease(t *testing.T) {
	l := newLocker(t, 1500*time.Millisecond)
	le, err := locktest.LockWithin(l, locktest.Key(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	grace := l.creds.sessionTimeout() / 3
	l.onEvent(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	time.Sleep(grace / 4)
	l.onEvent(zk.Event{Type: zk.EventSession, State: zk.StateHasSession})
	select {
	case <-le.Lost():
		t.Fatal("lost after a short disconnection")
	case <-time.After(grace + 200*time.Millisecond):
	}
	l.onEvent(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	select {
	case <-le.Lost():
	case <-time.After(grace + time.Second):
		t.Fatalf("not lost after a disconnection of more than %v", grace)
	}
	l.onEvent(zk.Event{Type: zk.EventSession, State: zk.StateHasSession})
	// The session survived: Unlock still deletes the node.
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
}

func TestCloseLosesLeases(t *testing.T) {
	l := newLocker(t, 0)
	le, err := locktest.LockWithin(l, locktest.Key(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	select {
	case <-le.Lost():
	default:
		t.Fatal("lease not lost when its session closed")
	}
	if _, err := locktest.LockWithin(l, locktest.Key(t), time.Second); err == nil {
		t.Fatal("Lock on a closed Locker succeeded")
	}
}

// TestUnlockThroughADroppedConnection: the connection drops while the
// delete is on the wire (the server deleted the node, the reply is lost).
// The session survives, so Unlock retries, finds the node gone in its own
// session and reports a clean release; the next contender gets the lock.
// (Before, Unlock failed with "zk: connection closed" and left the delete to
// the background reaper: a loaded CI machine saw it in the conformance suite.)
func TestUnlockThroughADroppedConnection(t *testing.T) {
	proxy := locktest.NewCutProxy(t, testenv.ZKServers(t)[0])
	l, err := New([]string{proxy.Addr}, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Armed.Store(true) // the next reply (the delete's) is dropped
	if err := locktest.Unlock(le); err != nil {
		t.Fatalf("Unlock through a dropped connection: %v", err)
	}
	if proxy.Armed.Load() {
		t.Fatal("no reply was dropped: the test did not cut the connection")
	}
	other := newLocker(t, 4*time.Second)
	le2, err := locktest.LockWithin(other, key, 10*time.Second)
	if err != nil {
		t.Fatalf("the next contender: %v", err)
	}
	if err := locktest.Unlock(le2); err != nil {
		t.Fatal(err)
	}
}
