// Package reserved holds the timings of a unit reserved from a strategy's
// own stock (redis-lua-stock, a Reserver): how long its database half may
// take (PersistBound), how long a rebuild of a lost stock waits before it
// reads the database (ReloadSettle), and when a unit still in flight is
// stale (Stale, QueuedStale). The strategy, the order path, the queue, the
// reconciliation and the sale's validation all read them here.
package reserved

import "time"

// ReloadSettle is how long a rebuild waits before it reads the
// database's stock: longer than any unit reserved from the lost stock can
// take to be persisted or given up (PersistBound), so the
// stock read counts every such order, and none is counted twice.
const ReloadSettle = 3 * time.Second

// PersistBound bounds the database half of a reserved order (its work
// included): a unit taken from the store is an order within it, or its
// persist gives up and the unit goes back.
const PersistBound = ReloadSettle * 2 / 3

// Stale is how old (by the store's clock) a unit taken for a
// synchronous order may be and still be in flight: past it, its replica
// died or lost touch between the taking and the settling, and a
// reconciliation reclaims it (the unit is an order, or goes back).
const Stale = 2 * PersistBound

// QueuedStale is how old (by the store's clock) a queued order's unit may
// be and still be in flight: the consumers retry a batch that failed every
// few seconds and fail a row the database refuses at once, so a ticket
// pending past this is stuck (its entry lost, or a failure that keeps
// failing): the sale is not healthy, and a repair settles the ticket (an
// order if it is a row, else failed as stuck and its unit back). Long
// enough for a herd's queue to drain on two cores.
const QueuedStale = 60 * time.Second
