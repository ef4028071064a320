// Package faultpoint is where an injected fault meets the order's road.
//
// The order path (internal/order), the queue consumer (internal/orderqueue)
// and the lock strategies call Hooks at named points: a section holding its
// lock (Nest), its business work (Work), just before its stock write
// (BeforeWrite), just before the order's transaction commits (BeforeCommit),
// a lock just taken in its backend (Acquired), the two-step moves of
// redis-getset (Gap), the clock a lock reads (Now) and a consumer's batch
// (Consumer). Hooks is nil in production: every point is then a no-op (the
// package functions of hooks.go take a nil Hooks).
//
// Points (points.go) is the one implementation: the one-shot faults of one
// replica, armed by internal/faults (or by a test) and fired at the points.
// ReplyDropper (replydrop.go) is the drop_reply fault, a hook on the Redis
// client rather than on the road: the command runs, its reply is lost.
package faultpoint
