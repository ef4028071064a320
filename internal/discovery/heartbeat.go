package discovery

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// removeTimeout bounds the final DELETE of a graceful stop: the caller's ctx
// is already done by then, so it gets a fresh one of its own.
const removeTimeout = 2 * time.Second

// pruneEvery: how often one heartbeat loop deletes long-dead rows.
const pruneEvery = time.Minute

// Heartbeat registers m, refreshes its row every o.Interval until ctx is
// done, then deletes the row (with a fresh, bounded ctx) so that a graceful
// stop drops out of List at once rather than after the expiry. A killed
// process deletes nothing: its row just stops being refreshed.
//
// A failed beat (the database hiccups) is logged and retried at the next
// tick rather than returned: the process it announces is still alive, and
// stopping the loop would make it look dead for good. Only an invalid m is
// returned at once; otherwise the result is the final delete's error.
func (o Options) Heartbeat(ctx context.Context, db *gorm.DB, m Member) error {
	if err := m.validate(); err != nil {
		return err
	}
	o = o.withDefaults()
	// One beat may take up to half the expiry: long enough for a busy
	// database, short enough that the next beats still land in time.
	beatTimeout := o.Expiry / 2
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()

	registered, failing := false, false
	var lastPrune time.Time
	for {
		bctx, cancel := context.WithTimeout(ctx, beatTimeout)
		var err error
		if registered {
			err = Beat(bctx, db, m)
		} else if err = Register(bctx, db, m); err == nil {
			registered = true
		}
		if err == nil && time.Since(lastPrune) >= pruneEvery {
			lastPrune = time.Now()
			if perr := prune(bctx, db); perr != nil {
				o.Log.Debug("discovery: prune failed", "err", perr)
			}
		}
		cancel()
		switch {
		case ctx.Err() != nil: // a beat cut by the stop is not a failure
		case err != nil && !failing:
			// Logged once per outage, not once a second.
			o.Log.Warn("discovery: heartbeat failing; others will see this member as gone after the expiry",
				"id", m.ID, "expiry", o.Expiry.String(), "err", err)
			failing = true
		case err == nil && failing:
			o.Log.Info("discovery: heartbeat recovered", "id", m.ID)
			failing = false
		}

		select {
		case <-ctx.Done():
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
			defer cancel()
			return Remove(rctx, db, m)
		case <-tick.C:
		}
	}
}
