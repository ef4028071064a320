// Package zklock is the zookeeper strategy: the
// lock recipe of the ZooKeeper docs and Curator's InterProcessMutex, written
// here because zk.Lock takes no ctx and cannot be abandoned.
//
// Each Lock creates an EPHEMERAL|SEQUENTIAL znode under
// /seckill/locks/<key>; the lowest sequence holds the lock, and every other
// waiter watches only its immediate predecessor, so a release wakes one
// waiter, not the herd. Ephemeral nodes die with the session:
// a holder that crashes or stops heart-beating is freed at session expiry,
// which is also the recipe's weak spot (a long GC pause or a
// partition expires the session while the holder still runs). Lost() closes
// as soon as this process can tell, and the token (the node's czxid) lets
// the sale fence a holder that could not.
package zklock

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// DefaultSessionTimeout is used when Backends.ZKSessionTimeout is 0. The
// server clamps it to [2, 20] x tickTime.
const DefaultSessionTimeout = 4 * time.Second

// Root is the persistent parent of every lock's directory.
const Root = "/seckill/locks"

// Locker is the zookeeper strategy over one ZooKeeper session, shared by
// every Lock of the process (ZooKeeper sessions are heavy: one per process,
// as Curator does). When the session expires, the client opens a new one for
// later Locks by itself, and every lease of the old one is lost.
type Locker struct {
	conn    *zk.Conn
	servers []string
	creds   *credentials
	acl     []zk.ACL
	closing chan struct{}
	once    sync.Once

	mu         sync.Mutex
	live       map[*lease]struct{} // held leases, lost together with the session
	gen        uint64              // +1 at every session expiry: nodes of older generations are gone
	discEpoch  uint64              // +1 at every disconnect and reconnect: cancels a stale disconnect timer
	disconnect *time.Timer

	// wakeups counts watch events that woke a waiter (tests show the absence
	// of a herd with it); sent counts the packets written to the server.
	wakeups atomic.Int64
	sent    traffic
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "zookeeper",
		Description: "Ephemeral sequential znode; each waiter watches only its predecessor; freed at session expiry; token = the node's czxid.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedZooKeeper},
		Safe:        true,
		Tokens:      true,
		Expiry:      lockstrategy.ExpirySession,
		// Options do not apply: the session timeout, not a TTL, frees a dead
		// holder, and the session heart-beats by itself (no renewal to turn off).
		Normalize: lockstrategy.NoOptions,
		NewLocker: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Locker, error) {
			return New(b.ZKServers, b.ZKSessionTimeout)
		},
	})
}

// New opens a session over servers (it connects in the background; Lock
// waits for it). sessionTimeout 0 means DefaultSessionTimeout. Close it.
func New(servers []string, sessionTimeout time.Duration) (*Locker, error) {
	if sessionTimeout <= 0 {
		sessionTimeout = DefaultSessionTimeout
	}
	l := &Locker{
		servers: servers,
		creds:   &credentials{timeout: sessionTimeout},
		acl:     zk.WorldACL(zk.PermAll),
		closing: make(chan struct{}),
		live:    map[*lease]struct{}{},
	}
	conn, _, err := zk.Connect(servers, sessionTimeout,
		zk.WithLogger(quietLogger{}), zk.WithLogInfo(false),
		zk.WithDialer(l.dial),
		// The callback, unlike the event channel, never drops an event (the
		// channel holds 6 and the client discards what does not fit).
		zk.WithEventCallback(l.onEvent))
	if err != nil {
		return nil, fmt.Errorf("zklock: connect %v: %w", servers, err)
	}
	l.conn = conn
	return l, nil
}

// Close ends the session: its nodes are deleted and its leases lost.
func (l *Locker) Close() error {
	l.once.Do(func() {
		close(l.closing)
		l.mu.Lock()
		l.loseAllLocked() // before the server deletes the nodes, not after
		if l.disconnect != nil {
			l.disconnect.Stop()
		}
		l.mu.Unlock()
		l.conn.Close()
	})
	return nil
}

// onEvent runs on the client's goroutine for every event: it must not block
// nor call the client.
func (l *Locker) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closing: // Close has lost every lease already
		return
	default:
	}
	switch ev.State {
	case zk.StateExpired:
		// The server dropped the session and with it our ephemeral nodes;
		// the client now opens a new session by itself.
		l.gen++
		l.loseAllLocked()
	case zk.StateDisconnected:
		if l.disconnect != nil {
			return
		}
		// While disconnected we cannot learn of the expiry, yet the server
		// may expire the session and hand the lock on. It counts the timeout
		// from the last packet it had from us, and the client notices a dead
		// connection only after 2/3 of the timeout of silence: the session
		// may be gone 1/3 of the timeout after this event, so Lost closes
		// then. (Curator reports SUSPENDED at once on a disconnection and
		// LOST only after the session timeout: code that goes on working
		// while SUSPENDED has a window where two processes believe they
		// hold the lock.)
		l.discEpoch++
		epoch := l.discEpoch
		l.disconnect = time.AfterFunc(l.creds.sessionTimeout()/3, func() { l.disconnectedTooLong(epoch) })
	case zk.StateHasSession:
		l.discEpoch++
		if l.disconnect != nil {
			l.disconnect.Stop()
			l.disconnect = nil
		}
	}
}

func (l *Locker) disconnectedTooLong(epoch uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if epoch != l.discEpoch { // reconnected meanwhile
		return
	}
	l.disconnect = nil
	// The session may survive (the nodes too: Unlock still deletes them),
	// but no lease can vouch for itself any more.
	l.loseAllLocked()
}

func (l *Locker) loseAllLocked() {
	for le := range l.live {
		le.markLost()
		delete(l.live, le)
	}
}

// register records le as held unless the session it was acquired in has
// expired since gen (its node is then gone).
func (l *Locker) register(le *lease, gen uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gen != gen {
		return false
	}
	l.live[le] = struct{}{}
	return true
}

func (l *Locker) forget(le *lease) {
	l.mu.Lock()
	delete(l.live, le)
	l.mu.Unlock()
}

func (l *Locker) generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// quietLogger sends the client's chatter (reconnects, dial failures) to
// slog at debug level instead of the standard logger.
type quietLogger struct{}

func (quietLogger) Printf(format string, args ...any) {
	slog.Debug("zk: " + fmt.Sprintf(format, args...))
}
