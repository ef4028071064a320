package zklock

import (
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
)

// A connection's first packet is the connect request; later ones are named
// by the op code after the length and the xid.
func TestOpOfNamesThePacket(t *testing.T) {
	packet := func(op int32) []byte {
		p := make([]byte, 16)
		binary.BigEndian.PutUint32(p[8:], uint32(op))
		return p
	}
	for _, tc := range []struct {
		p     []byte
		first bool
		want  string
	}{
		{packet(1), true, "connect"},
		{packet(1), false, "create"},
		{packet(12), false, "getChildren"},
		{packet(4), false, "getData"},
		{packet(11), false, "ping"},
		{packet(-11), false, "closeSession"},
		{packet(77), false, "op77"},
		{[]byte{0, 0, 0, 4}, false, "unknown"},
	} {
		if got := opOf(tc.p, tc.first); got != tc.want {
			t.Errorf("opOf(% x, first %v) = %q, want %q", tc.p, tc.first, got, tc.want)
		}
	}
}

// One uncontended lock and unlock, counted as the server received them: the
// connect, one create, a listing, the holder's exists (its czxid) and the
// release's delete, with no watch set and no waiter woken.
func TestTrafficCountsWhatTheSessionSent(t *testing.T) {
	l := newLocker(t, 0)
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	sent, wakeups := l.Traffic()
	if sent["connect"] < 1 || sent["create"] < 1 || sent["getChildren"] < 1 || sent["exists"] < 1 || sent["delete"] < 1 ||
		sent["getData"] != 0 || wakeups != 0 {
		t.Fatalf("sent %v, wakeups %d; want a connect, a create, a listing, an exists and a delete, no getData, no wake-up", sent, wakeups)
	}
}

// seenConn is a connection whose peer has the packet the moment Write
// hands it over: inside Write it asks what the counter already says, as a
// reader of the counts could once the server's reply reached the caller
// (an Unlock returning) before the writing goroutine ran again.
type seenConn struct {
	net.Conn
	t      *traffic
	seen   []int64 // the op's count inside each Write
	op     string
	refuse bool // write nothing, as a closed socket does
}

func (c *seenConn) Write(p []byte) (int, error) {
	c.seen = append(c.seen, c.t.snapshot()[c.op])
	if c.refuse {
		return 0, errors.New("closed")
	}
	return len(p), nil
}

// A request is in the counts before any reply to it can exist; a write
// that sent nothing takes its count back, and the next packet is still the
// connection's first (the connect).
func TestCountConnCountsBeforeTheWrite(t *testing.T) {
	var tr traffic
	del := make([]byte, 16)
	binary.BigEndian.PutUint32(del[8:], 2) // delete

	inner := &seenConn{t: &tr, op: "connect", refuse: true}
	c := &countConn{Conn: inner, t: &tr}
	if _, err := c.Write(del); err == nil {
		t.Fatal("a refused write reported no error")
	}
	if got := tr.snapshot()["connect"]; got != 0 {
		t.Errorf("after a write that sent nothing, connect counted %d, want 0", got)
	}
	inner.refuse = false
	if _, err := c.Write(del); err != nil { // the real connect
		t.Fatal(err)
	}
	inner.op = "delete"
	if _, err := c.Write(del); err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 1, 1}; len(inner.seen) != 3 || inner.seen[0] != want[0] || inner.seen[1] != want[1] || inner.seen[2] != want[2] {
		t.Errorf("counts seen by the peer inside each Write: %v, want %v (the packet counted before it is written)", inner.seen, want)
	}
	if got := tr.snapshot(); got["connect"] != 1 || got["delete"] != 1 {
		t.Errorf("counts %v, want one connect and one delete", got)
	}
}
