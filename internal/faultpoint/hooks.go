package faultpoint

import (
	"context"
	"time"
)

// Hooks is what the order's road calls at its named points. A nil Hooks is
// production: the functions below then do nothing and the clock is the
// real one.
type Hooks interface {
	// Nest is called once a section holds its lock: how long the section
	// then waits to take the same lock again as the same holder (the
	// nested_lock fault); 0: it does not.
	Nest() time.Duration
	// Work is called inside a locked section before its lease check: an
	// injected slow business step runs here (slow_work).
	Work(ctx context.Context)
	// BeforeWrite is called after the lease check, just before the stock
	// write: a paused holder stalls here (pause_holder).
	BeforeWrite(ctx context.Context)
	// BeforeCommit is called just before the order's transaction commits.
	BeforeCommit(ctx context.Context)
	// Acquired is called by a lock that has just taken its key in its backend,
	// before its Lock returns: true means the holder dies there
	// (crash_after_setnx), and the lock leaves the key as a dead holder
	// leaves it.
	Acquired() bool
	// Gap is how long the next move of kind g (a redis-getset release or
	// takeover) may hold its window open between its read and its write;
	// 0: not armed. One-shot.
	Gap(g Gap) time.Duration
	// Now is the clock a lock that reads the client's clock reads
	// (clock_skew).
	Now() time.Time
	// Consumer is called by the queue consumer at point p of a batch; an
	// armed kill_consumer kills the process there.
	Consumer(p ConsumerPoint)
}

// Gap is a two-step move of redis-getset whose window a fault holds open.
type Gap int

const (
	// ReleaseGap: between the release's GET of its own value and its DEL.
	ReleaseGap Gap = iota + 1
	// TakeoverGap: between the takeover's GET of an expired value and its
	// GETSET.
	TakeoverGap
)

// ConsumerPoint is where in a queue consumer's batch kill_consumer strikes.
type ConsumerPoint string

const (
	// BeforeConsumerCommit: the batch's transaction is written, not
	// committed: nothing of it lands, its entries stay pending.
	BeforeConsumerCommit ConsumerPoint = "before_commit"
	// AfterConsumerCommit: committed, not acknowledged: the reclaimed
	// entries find their orders and make nothing twice.
	AfterConsumerCommit ConsumerPoint = "after_commit"
)

// ConsumerPoints are the points kill_consumer can strike, in order.
func ConsumerPoints() []ConsumerPoint {
	return []ConsumerPoint{BeforeConsumerCommit, AfterConsumerCommit}
}

// Nest calls h.Nest; 0 for a nil h.
func Nest(h Hooks) time.Duration {
	if h == nil {
		return 0
	}
	return h.Nest()
}

// Work calls h.Work unless h is nil.
func Work(ctx context.Context, h Hooks) {
	if h != nil {
		h.Work(ctx)
	}
}

// BeforeWrite calls h.BeforeWrite unless h is nil.
func BeforeWrite(ctx context.Context, h Hooks) {
	if h != nil {
		h.BeforeWrite(ctx)
	}
}

// BeforeCommit calls h.BeforeCommit unless h is nil.
func BeforeCommit(ctx context.Context, h Hooks) {
	if h != nil {
		h.BeforeCommit(ctx)
	}
}

// Acquired calls h.Acquired; false for a nil h.
func Acquired(h Hooks) bool { return h != nil && h.Acquired() }

// GapOf calls h.Gap; 0 for a nil h.
func GapOf(h Hooks, g Gap) time.Duration {
	if h == nil {
		return 0
	}
	return h.Gap(g)
}

// Now calls h.Now; the real clock for a nil h.
func Now(h Hooks) time.Time {
	if h == nil {
		return time.Now()
	}
	return h.Now()
}

// Consumer calls h.Consumer unless h is nil.
func Consumer(h Hooks, p ConsumerPoint) {
	if h != nil {
		h.Consumer(p)
	}
}
