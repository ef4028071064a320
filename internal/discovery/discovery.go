// Package discovery lets shop replicas and load-test agents find each other
// through the shared database, never through hard-coded
// lists. Each process upserts a row of the replicas table once a second
// (Heartbeat); a row not refreshed within the expiry belongs to a process that
// died, and List leaves it out. A graceful stop deletes the row at once.
//
// Every time is the database's clock: a replica writes UTC_TIMESTAMP(6), not
// its own time.Now, and the alive test compares with the database's clock in
// the same statement. Replicas on machines whose clocks disagree by seconds
// would otherwise see each other as dead (or a dead one as alive).
package discovery

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Kind is what a member is.
type Kind string

// The kinds of member (the replicas.kind ENUM).
const (
	KindShop  Kind = "shop"  // a `shop serve` replica
	KindAgent Kind = "agent" // a `loadtest agent`
)

// Member is one process in the replicas table.
type Member struct {
	ID   string // unique name, at most 64 characters (e.g. shop-1)
	Kind Kind
	URL  string // where it serves, at most 255 characters; may be empty for an agent
	PID  int    // its process id on its own machine

	// Read back by List and Recent; ignored when writing. StartedAt and
	// LastSeen are the database's clock, in UTC; Age is how long ago
	// LastSeen was on that same clock.
	StartedAt time.Time
	LastSeen  time.Time
	Age       time.Duration
	Alive     bool // LastSeen within the expiry
}

// ErrInvalidMember is returned for a member that cannot be stored: empty or
// too long id, unknown kind, too long URL.
var ErrInvalidMember = errors.New("discovery: invalid member")

// Column limits of migrations/0005_replicas.sql.
const (
	maxIDLen  = 64
	maxURLLen = 255
)

func (m Member) validate() error {
	switch {
	case m.ID == "" || len(m.ID) > maxIDLen:
		return fmt.Errorf("%w: id %q must be 1-%d characters", ErrInvalidMember, m.ID, maxIDLen)
	case m.Kind != KindShop && m.Kind != KindAgent:
		return fmt.Errorf("%w: kind %q is neither %q nor %q", ErrInvalidMember, m.Kind, KindShop, KindAgent)
	case len(m.URL) > maxURLLen:
		return fmt.Errorf("%w: url longer than %d characters", ErrInvalidMember, maxURLLen)
	case m.PID < 0:
		return fmt.Errorf("%w: negative pid", ErrInvalidMember)
	}
	return nil
}

// Options are the timings of discovery. The zero value of a field means its
// default; Default holds them all.
type Options struct {
	// Interval between heartbeats; default 1 s.
	Interval time.Duration
	// Expiry: a member whose last heartbeat is older is dead; default 5 s
	// (how soon a killed replica must drop out of the lists). It must exceed
	// Interval by a margin for a slow beat or two.
	Expiry time.Duration
	// Gone: Recent also returns members dead for less than this, with
	// Alive false, so that a dashboard can show "gone"; default 60 s.
	Gone time.Duration
	// Log receives heartbeat failures and recoveries; nil discards them.
	Log *slog.Logger
}

// Default is the production timing: beat every second, dead after 5 s,
// shown as gone for a minute.
var Default = Options{Interval: time.Second, Expiry: 5 * time.Second, Gone: time.Minute}

// pruneAfter: rows dead for longer are deleted by any live heartbeat, so that
// the table does not grow with every killed process. Far beyond Gone: nothing
// reads them any more.
const pruneAfter = 10 * time.Minute

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = Default.Interval
	}
	if o.Expiry <= 0 {
		o.Expiry = Default.Expiry
	}
	if o.Gone <= 0 {
		o.Gone = Default.Gone
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}
