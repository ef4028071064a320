package zklock

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// cleanupBound bounds the synchronous delete of a node we abandon; past it,
// or when it fails, the reaper takes over.
const cleanupBound = time.Second

// lease is one holding: our node is the lowest of its directory.
type lease struct {
	l         *Locker
	dir, node string
	guid      string
	token     uint64
	session   int64 // the node's ephemeral owner: the session it lives in
	lost      chan struct{}
	lostOnce  sync.Once
	released  atomic.Bool
}

func newLease(l *Locker, dir, node, guid string, token uint64, session int64) *lease {
	return &lease{l: l, dir: dir, node: node, guid: guid, token: token, session: session, lost: make(chan struct{})}
}

// Token is the node's czxid (see acquired for why not the sequence).
func (le *lease) Token() uint64         { return le.token }
func (le *lease) Lost() <-chan struct{} { return le.lost }

func (le *lease) markLost() { le.lostOnce.Do(func() { close(le.lost) }) }

// Unlock deletes our node, and only it (version -1 is fine: nobody else
// writes it); the next waiter's watch fires. A node already gone (the
// session expired) or a second Unlock returns ErrNotHeld.
func (le *lease) Unlock(ctx context.Context) error {
	if !le.released.CompareAndSwap(false, true) {
		return lockstrategy.ErrNotHeld
	}
	le.l.forget(le)
	err := le.deleteNode(ctx)
	switch {
	case err == nil:
		return nil
	case gone(err):
		return fmt.Errorf("zklock: %w: %s went with its session", lockstrategy.ErrNotHeld, le.node)
	default:
		// The node may still be there and, in a live session, it would hold
		// the lock for nobody: keep deleting it in the background.
		le.l.reap(le.dir, le.guid)
		return fmt.Errorf("zklock: unlock %s: %w", le.node, err)
	}
}

// deleteNode deletes our node, retrying while the connection is down and
// ctx lasts: a dropped connection (a loaded machine, a server of the
// ensemble killed) keeps the session, so the delete can still be done. A
// retry that finds no node while our session is the one that made it means
// the earlier attempt landed before the connection dropped: released.
func (le *lease) deleteNode(ctx context.Context) error {
	retried := false
	for {
		_, err := call(ctx, func() (struct{}, error) { return struct{}{}, le.l.conn.Delete(le.node, -1) })
		switch {
		case err == nil:
			return nil
		case retried && errors.Is(err, zk.ErrNoNode) && le.l.conn.SessionID() == le.session:
			return nil
		case !transient(err):
			return err
		}
		retried = true
		select {
		case <-ctx.Done():
			return err
		case <-time.After(transientPause):
		}
	}
}

// cleanup deletes a node this process no longer wants (a cancelled waiter's,
// or one created after its Lock gave up), so that it never reaches the head
// of the queue with nobody to release it.
func (l *Locker) cleanup(dir, guid, node string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupBound)
	defer cancel()
	_, err := call(ctx, func() (struct{}, error) { return struct{}{}, l.conn.Delete(node, -1) })
	if err != nil && !gone(err) {
		l.reap(dir, guid)
	}
}

// reap deletes, in the background, every node of dir made with guid, until
// it succeeds, the session expires (taking them along), or the Locker closes.
func (l *Locker) reap(dir, guid string) {
	gen := l.generation() // the node lives in this session or an older one
	go func() {
		for pause := transientPause; ; pause = min(2*pause, time.Second) {
			if l.generation() != gen {
				return
			}
			if l.deleteGUID(dir, guid) {
				return
			}
			select {
			case <-l.closing:
				return
			case <-time.After(pause):
			}
		}
	}()
}

// deleteGUID reports whether no node of guid is left in dir.
func (l *Locker) deleteGUID(dir, guid string) bool {
	children, _, err := l.conn.Children(dir)
	if err != nil {
		return gone(err)
	}
	for _, c := range children {
		if strings.HasPrefix(c, protectedPrefix+guid) {
			if err := l.conn.Delete(dir+"/"+c, -1); err != nil && !gone(err) {
				return false
			}
		}
	}
	return true
}

// gone says err means the node cannot exist any more.
func gone(err error) bool {
	return errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrClosing)
}
