package redlock

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/go-redsync/redsync/v4/redis"
	goredislib "github.com/redis/go-redis/v9"
)

// A dead master must not slow every lock down. redsync waits for every
// master's answer, and go-redis turns a refused connection into dial retries
// until the ctx deadline: measured here with one of three masters down, a try
// took its whole timeout (100 ms at a 2 s TTL) and an unlock 1.7 s. redsync's
// WithFailFast (return at quorum) is no cure: it cancels the commands still
// in flight, and a cancelled release leaves a partial lock on a master until
// its TTL; measured with 32 contenders on one key that left the lock
// unobtainable for whole TTLs (61 locks/s instead of 1,043).
//
// So each master sits behind a guard: a master whose connection fails (not
// one that is merely slow) while another master answered the same round counts as down for
// downFor, and commands to it fail at once; the next command after that
// probes it again. A round where every master is slow (a busy machine) marks
// nobody down. Skipping a master only takes its vote away: the quorum rule,
// and so safety, is unchanged.
const downFor = time.Second

// errMasterDown is a guarded master's answer while it counts as down.
var errMasterDown = errors.New("redlock: master marked down after a failure")

// health is what the guards of one Locker's masters know of each other.
type health struct {
	lastOK    []atomic.Int64 // unix ns of each master's last answer
	downUntil []atomic.Int64 // unix ns until which each master counts as down
}

func newHealth(n int) *health {
	return &health{lastOK: make([]atomic.Int64, n), downUntil: make([]atomic.Int64, n)}
}

// observe records the outcome of a command to master i that began at start.
func (h *health) observe(i int, start int64, err error) {
	now := time.Now().UnixNano()
	var reply goredislib.Error
	if err == nil || errors.As(err, &reply) { // a Redis error reply: the master is up
		h.lastOK[i].Store(now)
		return
	}
	if errors.Is(err, context.Canceled) { // our caller gave up; says nothing of the master
		return
	}
	// Slow is not down: on a busy machine a round's deadline passes with
	// every master alive, and marking them down then failed releases (the
	// keys stayed until their TTL). Only a failed connection counts.
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return
	}
	for j := range h.lastOK {
		if j != i && h.lastOK[j].Load() > start {
			h.downUntil[i].Store(now + int64(downFor))
			return
		}
	}
}

// guardedPool is one master's redsync pool behind its guard.
type guardedPool struct {
	pool redis.Pool
	h    *health
	i    int
}

func (p *guardedPool) Get(ctx context.Context) (redis.Conn, error) {
	if time.Now().UnixNano() < p.h.downUntil[p.i].Load() {
		return nil, errMasterDown
	}
	c, err := p.pool.Get(ctx)
	if err != nil {
		return nil, err
	}
	return &guardedConn{Conn: c, p: p, start: time.Now().UnixNano()}, nil
}

// guardedConn observes the commands redsync's lock, extend and release use.
type guardedConn struct {
	redis.Conn
	p     *guardedPool
	start int64
}

func (c *guardedConn) SetNX(name, value string, expiry time.Duration) (bool, error) {
	ok, err := c.Conn.SetNX(name, value, expiry)
	c.p.h.observe(c.p.i, c.start, err)
	return ok, err
}

func (c *guardedConn) Eval(script *redis.Script, keysAndArgs ...any) (any, error) {
	v, err := c.Conn.Eval(script, keysAndArgs...)
	c.p.h.observe(c.p.i, c.start, err)
	return v, err
}
