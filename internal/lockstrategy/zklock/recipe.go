package zklock

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

const (
	// Node names are "_c_<guid>-lock-<seq>": the "_c_<guid>-" protection
	// prefix is Curator's and go-zookeeper's, "lock-" the recipe's.
	protectedPrefix = "_c_"
	nodePrefix      = "lock-"
	// maxRequeues bounds how often one Lock queues again after the session
	// expired under it.
	maxRequeues = 3
	// maxCreateTries bounds create attempts across connection losses.
	maxCreateTries = 5
	// transientPause is the wait before a request retried after the
	// connection dropped (the client reconnects by itself).
	transientPause = 50 * time.Millisecond
)

// errNodeGone means our node vanished with an expired session while we
// waited: nothing is held, queue again.
var errNodeGone = errors.New("zklock: our node is gone (session expired)")

// Lock queues for key and returns when its node is the lowest, when ctx ends
// (its node is then deleted: a cancelled waiter leaves nothing queued), or
// when the session expired maxRequeues times while it waited (ErrNotAcquired).
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	dir := Root + "/" + escapeKey(key)
	for range maxRequeues {
		gen := l.generation()
		guid := lockstrategy.NewOwner()
		node, err := l.create(ctx, dir, guid)
		if err != nil {
			return nil, err
		}
		le, err := l.await(ctx, dir, node, guid, gen)
		if err == nil {
			return le, nil
		}
		// Also on errNodeGone: the node may live in the new session (created
		// after the expiry we learnt of late), and nobody else would delete it.
		l.cleanup(dir, guid, node)
		if !errors.Is(err, errNodeGone) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("zklock: %w: the session expired %d times while waiting", lockstrategy.ErrNotAcquired, maxRequeues)
}

// create makes our node, or returns when ctx ends; a create that completes
// after that is deleted, or its node would hold the lock for nobody.
func (l *Locker) create(ctx context.Context, dir, guid string) (string, error) {
	type result struct {
		node string
		err  error
	}
	done := make(chan result) // unbuffered: exactly one of receive / abandon happens
	abandoned := make(chan struct{})
	go func() {
		node, err := l.createNode(dir, guid)
		select {
		case done <- result{node, err}:
		case <-abandoned:
			if err == nil {
				l.cleanup(dir, guid, node)
			}
		}
	}()
	select {
	case r := <-done:
		return r.node, r.err
	case <-ctx.Done():
		close(abandoned)
		return "", ctx.Err()
	}
}

func (l *Locker) createNode(dir, guid string) (string, error) {
	prefix := dir + "/" + protectedPrefix + guid + "-" + nodePrefix
	unknown := false // a create may have succeeded without our hearing of it
	var err error
	for range maxCreateTries {
		if unknown {
			// Curator's pitfall: the server may have created the node while
			// the reply died with the connection. Creating again would queue
			// a second node of ours that nobody deletes until the session
			// ends, so find the first one by its GUID before anything else.
			var node string
			var found bool
			node, found, err = l.findOwn(dir, guid)
			switch {
			case found:
				return node, nil
			case err != nil && !gone(err): // still cut off: look again
				time.Sleep(transientPause)
				continue
			}
			unknown = false // not there, or its session is gone
		}
		var node string
		node, err = l.conn.Create(prefix, nil, zk.FlagEphemeralSequential, l.acl)
		switch {
		case err == nil:
			return node, nil
		case errors.Is(err, zk.ErrNoNode): // first lock of this key
			if err = l.ensureDir(dir); err != nil && !transient(err) {
				return "", fmt.Errorf("zklock: create %s: %w", dir, err)
			}
		case errors.Is(err, zk.ErrConnectionClosed):
			unknown = true
			time.Sleep(transientPause)
		case errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrNoServer):
			time.Sleep(transientPause) // not created, or created in a dead session
		default:
			return "", fmt.Errorf("zklock: create under %s: %w", dir, err)
		}
	}
	if unknown {
		l.reap(dir, guid)
	}
	return "", fmt.Errorf("zklock: create under %s: %w", dir, err)
}

// ensureDir creates dir and its parents, persistent and empty. They are
// never deleted: deleting an empty parent races with a creator between its
// ensureDir and its create, and one empty znode per sale is cheap.
func (l *Locker) ensureDir(dir string) error {
	p := ""
	for _, part := range strings.Split(strings.TrimPrefix(dir, "/"), "/") {
		p += "/" + part
		if _, err := l.conn.Create(p, nil, zk.FlagPersistent, l.acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// findOwn looks for the node this Lock created, by its GUID.
func (l *Locker) findOwn(dir, guid string) (string, bool, error) {
	children, _, err := l.conn.Children(dir)
	if err != nil {
		return "", false, err
	}
	for _, c := range children {
		if strings.HasPrefix(c, protectedPrefix+guid) {
			return dir + "/" + c, true, nil
		}
	}
	return "", false, nil
}

// await waits until node is the lowest of dir's children. It watches only the
// immediate predecessor: a release then wakes one waiter, not all of them.
func (l *Locker) await(ctx context.Context, dir, node, guid string, gen uint64) (*lease, error) {
	own := path.Base(node)
	// The czxid is fixed at creation: ask for it now, alongside the first
	// listing, rather than one round trip after the last one.
	stat := make(chan statResult, 1)
	go func() { stat <- l.statOf(node) }()
	for {
		children, err := call(ctx, func() ([]string, error) {
			c, _, err := l.conn.Children(dir)
			return c, err
		})
		if err != nil {
			if err = retryable(ctx, err); err != nil {
				return nil, err
			}
			continue
		}
		pred, found := predecessor(children, own)
		if !found {
			return nil, errNodeGone
		}
		if pred == "" {
			return l.acquired(ctx, dir, node, guid, gen, stat)
		}
		// GetW, not ExistsW: on a predecessor that is already gone, ExistsW
		// leaves a watch for its creation, which never comes, on the server
		// and in the client until the session ends (Curator uses getData
		// for the same reason). GetW sets no watch on a missing node.
		wake, err := call(ctx, func() (<-chan zk.Event, error) {
			_, _, ch, err := l.conn.GetW(dir + "/" + pred)
			return ch, err
		})
		switch {
		case errors.Is(err, zk.ErrNoNode): // released between the listing and the watch
			continue
		case err != nil:
			if err = retryable(ctx, err); err != nil {
				return nil, err
			}
			continue
		}
		select {
		case <-wake: // deleted, or the session event that ends every watch
			l.wakeups.Add(1)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// acquired reads the node's czxid for the token and records the lease.
//
// The token is czxid, the zxid of the transaction that created the node:
// zxids grow with every transaction of the ensemble, and holders are served
// in creation order, so each holder's czxid is larger than the previous
// holder's. The sequence number would do while the parent lives, but it
// counts per parent and restarts if the parent is ever deleted and created
// again; czxid does not.
func (l *Locker) acquired(ctx context.Context, dir, node, guid string, gen uint64, stat <-chan statResult) (*lease, error) {
	var r statResult
	select {
	case r = <-stat:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for r.err != nil {
		if err := retryable(ctx, r.err); err != nil {
			return nil, err
		}
		var err error
		if r, err = call(ctx, func() (statResult, error) { return l.statOf(node), nil }); err != nil {
			return nil, err
		}
	}
	le := newLease(l, dir, node, guid, uint64(r.stat.Czxid), r.stat.EphemeralOwner)
	if !l.register(le, gen) {
		return nil, errNodeGone
	}
	return le, nil
}

type statResult struct {
	stat *zk.Stat
	err  error
}

func (l *Locker) statOf(node string) statResult {
	ok, st, err := l.conn.Exists(node)
	if err == nil && !ok {
		err = errNodeGone
	}
	return statResult{st, err}
}

// retryable returns nil when err is a dropped connection worth a retry (our
// node lives on with the session), after a short pause.
func retryable(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, zk.ErrSessionExpired), errors.Is(err, errNodeGone), errors.Is(err, zk.ErrNoNode):
		return errNodeGone // ErrNoNode: the directory went, so our node with it
	case transient(err):
		return lockstrategy.Sleep(ctx, transientPause)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("zklock: %w", err)
}

// transient says err is a dropped connection: the client reconnects, and
// the session and our node may well live on.
func transient(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)
}

// predecessor returns the child just below own in sequence order ("" when
// own is the lowest) and whether own is among children at all.
func predecessor(children []string, own string) (pred string, found bool) {
	ownSeq, ok := sequence(own)
	if !ok {
		return "", false
	}
	best := int64(-1)
	for _, c := range children {
		if c == own {
			found = true
			continue
		}
		if s, ok := sequence(c); ok && s < ownSeq && s > best {
			best, pred = s, c
		}
	}
	return pred, found
}

// sequence parses the counter the server appends after "lock-".
func sequence(name string) (int64, bool) {
	i := strings.LastIndex(name, nodePrefix)
	if i < 0 {
		return 0, false
	}
	s, err := strconv.ParseInt(name[i+len(nodePrefix):], 10, 64)
	return s, err == nil
}

// escapeKey makes key one znode name: '/' would nest, and "", "." and ".."
// are not valid names. Keys like "sale:42" are unchanged.
func escapeKey(key string) string {
	name := url.PathEscape(key) // escapes '/', '%', controls and non-ASCII
	switch name {
	case "", ".", "..":
		name = "%" + strings.ReplaceAll(name, ".", "%2E") // never PathEscape's output
	}
	return name
}

// call runs a request of the client, which takes no ctx, and returns when it
// does or when ctx ends (the request then completes unobserved).
func call[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
