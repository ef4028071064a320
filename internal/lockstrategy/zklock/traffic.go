package zklock

import (
	"encoding/binary"
	"net"
	"strconv"
	"sync"
	"time"
)

// traffic counts the packets a Locker's sessions wrote to the server, by
// request type: what its waiters and holders cost the server, for the
// lesson that compares ways of waiting (GET /api/faults/zk-stats).
type traffic struct {
	mu   sync.Mutex
	sent map[string]int64
}

// opNames are the request types of ZooKeeper's wire protocol this client
// sends (go-zookeeper's op codes). Children is getChildren2 on the wire
// (the listing with the directory's stat); both listings count as
// getChildren. GetW is getData with the watch flag set.
var opNames = map[int32]string{
	1: "create", 2: "delete", 3: "exists", 4: "getData", 5: "setData", 8: "getChildren", 9: "sync",
	11: "ping", 12: "getChildren", 14: "multi", 19: "createContainer", 21: "createTTL",
	-11: "closeSession", 100: "setAuth", 101: "setWatches",
}

// opOf names a connection's packet: its first is the connect request, which
// has no header; every later one is length, xid, op code, body.
func opOf(p []byte, first bool) string {
	switch {
	case first:
		return "connect"
	case len(p) < 12:
		return "unknown"
	}
	op := int32(binary.BigEndian.Uint32(p[8:12]))
	if name, ok := opNames[op]; ok {
		return name
	}
	return "op" + strconv.Itoa(int(op))
}

func (t *traffic) add(op string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sent == nil {
		t.sent = map[string]int64{}
	}
	t.sent[op]++
}

func (t *traffic) take(op string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sent[op]--
}

func (t *traffic) snapshot() map[string]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int64, len(t.sent))
	for op, n := range t.sent {
		out[op] = n
	}
	return out
}

// countConn counts each Write as one packet: go-zookeeper writes every
// packet (the connect request, a request, a heartbeat ping) in one Write,
// from one goroutine at a time (the handshake, then its send loop).
type countConn struct {
	net.Conn
	t     *traffic
	wrote bool
}

// A packet is counted before it is written: the server's reply can reach
// the caller (an Unlock returns) before this goroutine runs again after
// the write, and a reader of the counts must find the request there.
func (c *countConn) Write(p []byte) (int, error) {
	op := opOf(p, !c.wrote)
	c.t.add(op)
	n, err := c.Conn.Write(p)
	if n == 0 {
		c.t.take(op) // nothing went out
	} else {
		c.wrote = true
	}
	return n, err
}

// dial is the client's zk.Dialer: the credentials' sniffing dial, counted.
func (l *Locker) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := l.creds.dial(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &countConn{Conn: conn, t: &l.sent}, nil
}

// Traffic is what this Locker's sessions have sent the server since it was
// made, in packets by request type (connect, create, getChildren, getData,
// exists, delete, ping...), and the watch events that woke a waiter. A
// lesson reads its change over a herd: the server's work per acquisition.
func (l *Locker) Traffic() (requests map[string]int64, wakeups int64) {
	return l.sent.snapshot(), l.wakeups.Load()
}
