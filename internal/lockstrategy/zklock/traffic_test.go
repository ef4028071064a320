package zklock

import (
	"encoding/binary"
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
