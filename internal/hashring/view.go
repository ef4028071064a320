package hashring

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"gorm.io/gorm"
)

// Refresh is how old a replica's view may be before it is read again from
// the heartbeats: the ring's bounded staleness. A replica that dies drops
// out after discovery's expiry (5 s) plus this; one that leaves the ring
// (ring_leaves) after this alone.
const Refresh = 500 * time.Millisecond

// epochBase: epochs are milliseconds since this moment, so that an epoch
// shifted left by seqBits still fits in a uint64 (tokens.go).
var epochBase = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// View is one replica's picture of the ring.
type View struct {
	Self    Member   `json:"self"`
	Members []Member `json:"members"` // sorted by id
	// Epoch grows each time this replica's member list changed (or the
	// stale_ring hold on it ended): the milliseconds (since 2020, this
	// replica's clock) of the change. A fencing token carries it, so that
	// an owner whose view is older loses to one whose view is newer, as
	// long as the replicas' clocks agree to within the time between two
	// changes (docs/decisions/0034-consistent-hashing.md).
	Epoch     uint64    `json:"epoch"`
	ChangedAt time.Time `json:"changed_at"`
	ReadAt    time.Time `json:"read_at"` // when the members were last read
	// StaleUntil is set while the stale_ring fault holds this view as it
	// is (the members are not read again before it).
	StaleUntil *time.Time `json:"stale_until,omitempty"`
	ring       Ring
}

// Owner is the member that owns key in this view.
func (v View) Owner(key string) (Member, bool) { return v.ring.Owner(key) }

// Owns says this replica owns key in its own view.
func (v View) Owns(key string) bool {
	o, ok := v.Owner(key)
	return ok && o.ID == v.Self.ID
}

// Live lists the live shop replicas (cmd/shop reads them from
// internal/discovery's heartbeats; this package does not import it, so that
// discovery's tests can use the lock strategies).
type Live func(ctx context.Context) ([]Member, error)

// Membership is one replica's ring view, shared by every sale of the
// consistent-hash strategy in the process.
type Membership struct {
	db   *gorm.DB
	live Live

	mu         sync.Mutex
	self       Member
	view       View
	staleUntil time.Time
	now        func() time.Time
}

// NewMembership is a view of the replicas live lists, minus the departures
// in db's ring_leaves; live nil is a ring of this process alone (a test's,
// or a process that is no replica).
func NewMembership(db *gorm.DB, live Live) *Membership {
	return &Membership{db: db, live: live, self: Member{ID: "local"}, now: time.Now}
}

// SetSelf names this replica as discovery does (its id and URL): known
// once it listens, after the strategies are built.
func (m *Membership) SetSelf(self Member) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.self = self
	m.view.ReadAt = time.Time{} // read again with the right self
}

// Current is this replica's view, read again when older than Refresh
// (unless the stale_ring fault holds it). A failed read keeps the last
// view and returns the error with it.
func (m *Membership) Current(ctx context.Context) (View, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if now.Before(m.staleUntil) {
		v := m.view
		until := m.staleUntil
		v.StaleUntil = &until
		return v, nil
	}
	// A view just released from the stale_ring hold is read at once, and
	// is a change even if its members read the same: this replica was out
	// of the others' rings meanwhile, and the owner that stood in for it
	// claimed fences with its own, newer epoch.
	rejoined := !m.staleUntil.IsZero()
	if !rejoined && !m.view.ReadAt.IsZero() && now.Sub(m.view.ReadAt) < Refresh && m.view.Self == m.self {
		return m.view, nil
	}
	members, err := m.read(ctx)
	if err != nil {
		return m.view, err
	}
	m.adopt(members, now, rejoined)
	m.staleUntil = time.Time{}
	return m.view, nil
}

// adopt makes members the view, read at now; a changed list (or a first
// one, or changed true) starts a new epoch.
func (m *Membership) adopt(members []Member, now time.Time, changed bool) {
	if changed || m.view.ring.points == nil || !slices.Equal(members, m.view.Members) || m.view.Self != m.self {
		epoch := uint64(max(1, now.Sub(epochBase).Milliseconds()))
		if epoch <= m.view.Epoch {
			epoch = m.view.Epoch + 1 // two changes in one millisecond
		}
		m.view = View{Members: members, Epoch: epoch, ChangedAt: now.UTC(), ring: New(members)}
	}
	m.view.Self, m.view.ReadAt = m.self, now.UTC()
}

// read lists the live shop replicas minus those that left the ring, and
// this replica itself unless it left: a process believes itself alive.
func (m *Membership) read(ctx context.Context) ([]Member, error) {
	if m.db == nil || m.live == nil {
		return []Member{m.self}, nil
	}
	live, err := m.live(ctx)
	if err != nil {
		return nil, fmt.Errorf("hashring: members: %w", err)
	}
	var left []string
	if err := m.db.WithContext(ctx).Raw("SELECT replica_id FROM ring_leaves WHERE until > UTC_TIMESTAMP(6)").
		Scan(&left).Error; err != nil {
		return nil, fmt.Errorf("hashring: departures: %w", err)
	}
	var out []Member
	for _, r := range live {
		if r.ID != m.self.ID && !slices.Contains(left, r.ID) {
			out = append(out, r)
		}
	}
	if !slices.Contains(left, m.self.ID) {
		out = append(out, m.self)
	}
	slices.SortFunc(out, func(a, b Member) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

// LeaveStale is the stale_ring fault: this replica leaves the others'
// rings for d (a row in ring_leaves, which they see within Refresh) while
// its own view stays the one it has now for d: it goes on believing it owns
// its sales, as a draining replica that has not yet noticed. After d it
// reads the members again, with a new epoch, and is back in everyone's
// ring.
func (m *Membership) LeaveStale(ctx context.Context, d time.Duration) error {
	if _, err := m.Current(ctx); err != nil {
		return err
	}
	if m.db == nil || m.live == nil {
		return fmt.Errorf("hashring: a ring of one process has no others to leave")
	}
	m.mu.Lock()
	id := m.self.ID
	m.staleUntil = m.now().Add(d)
	m.mu.Unlock()
	err := m.db.WithContext(ctx).Exec(`INSERT INTO ring_leaves (replica_id, until)
VALUES (?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)
ON DUPLICATE KEY UPDATE until = VALUES(until)`, id, d.Microseconds()).Error
	if err != nil {
		m.mu.Lock()
		m.staleUntil = time.Time{}
		m.mu.Unlock()
		return fmt.Errorf("hashring: leave: %w", err)
	}
	return nil
}
