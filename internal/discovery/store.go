package discovery

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Both upserts take the time from the database (UTC_TIMESTAMP(6): the
// server's clock, independent of the session's time_zone), evaluated once per
// statement, so started_at and last_seen of a new row are equal.
const (
	registerSQL = `INSERT INTO replicas (id, kind, url, pid, started_at, last_seen)
VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE kind = VALUES(kind), url = VALUES(url), pid = VALUES(pid),
  started_at = VALUES(started_at), last_seen = VALUES(last_seen)`

	// beatSQL keeps started_at of an existing row; a missing row (deleted by
	// an operator, or pruned after a long database outage) is re-inserted.
	beatSQL = `INSERT INTO replicas (id, kind, url, pid, started_at, last_seen)
VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE kind = VALUES(kind), url = VALUES(url), pid = VALUES(pid),
  last_seen = VALUES(last_seen)`

	// Times are read as microseconds since the epoch, computed by the
	// database: this needs neither parseTime in the DSN nor a matching loc,
	// and the age is the database's own subtraction. UTC_TIMESTAMP is fixed
	// at statement start, so a beat committed while this statement runs can
	// look a few microseconds "in the future": the age is clamped at 0.
	listSQL = `SELECT id, kind, url, pid,
  TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', started_at) AS started_us,
  TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', last_seen) AS seen_us,
  GREATEST(0, TIMESTAMPDIFF(MICROSECOND, last_seen, UTC_TIMESTAMP(6))) AS age_us
FROM replicas
WHERE last_seen >= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND
ORDER BY kind, id`

	pruneSQL = `DELETE FROM replicas WHERE last_seen < UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND`
)

// Register writes m's row with started_at = now (database clock), replacing
// any row of the same id: a restarted process starts afresh.
func Register(ctx context.Context, db *gorm.DB, m Member) error {
	return upsert(ctx, db, registerSQL, m)
}

// Beat refreshes m's last_seen (database clock), inserting the row if it is
// missing. It is one heartbeat; Heartbeat calls it every Interval.
func Beat(ctx context.Context, db *gorm.DB, m Member) error {
	return upsert(ctx, db, beatSQL, m)
}

func upsert(ctx context.Context, db *gorm.DB, query string, m Member) error {
	if err := m.validate(); err != nil {
		return err
	}
	if err := db.WithContext(ctx).Exec(query, m.ID, string(m.Kind), m.URL, m.PID).Error; err != nil {
		return fmt.Errorf("discovery: heartbeat of %s: %w", m.ID, err)
	}
	return nil
}

// Remove deletes m's row, but only if it is still m's (same id and pid): a
// process that stops must not remove the row of a newer one with its name.
func Remove(ctx context.Context, db *gorm.DB, m Member) error {
	if err := db.WithContext(ctx).Exec("DELETE FROM replicas WHERE id = ? AND pid = ?", m.ID, m.PID).Error; err != nil {
		return fmt.Errorf("discovery: remove %s: %w", m.ID, err)
	}
	return nil
}

// List returns the live members under Default timings, shops first, by id.
func List(ctx context.Context, db *gorm.DB) ([]Member, error) { return Default.List(ctx, db) }

// Recent returns the live members and those gone within Default.Gone.
func Recent(ctx context.Context, db *gorm.DB) ([]Member, error) { return Default.Recent(ctx, db) }

// List returns the members whose last heartbeat is within o.Expiry.
func (o Options) List(ctx context.Context, db *gorm.DB) ([]Member, error) {
	o = o.withDefaults()
	return query(ctx, db, o.Expiry, o.Expiry)
}

// Recent returns the live members (Alive true) and those whose last
// heartbeat is within o.Gone (Alive false), shops first, by id.
func (o Options) Recent(ctx context.Context, db *gorm.DB) ([]Member, error) {
	o = o.withDefaults()
	return query(ctx, db, max(o.Gone, o.Expiry), o.Expiry)
}

// prune deletes the rows of members dead for longer than pruneAfter.
func prune(ctx context.Context, db *gorm.DB) error {
	return db.WithContext(ctx).Exec(pruneSQL, pruneAfter.Microseconds()).Error
}

type memberRow struct {
	ID        string `gorm:"column:id"`
	Kind      string `gorm:"column:kind"`
	URL       string `gorm:"column:url"`
	PID       int    `gorm:"column:pid"`
	StartedUS int64  `gorm:"column:started_us"`
	SeenUS    int64  `gorm:"column:seen_us"`
	AgeUS     int64  `gorm:"column:age_us"`
}

func query(ctx context.Context, db *gorm.DB, within, expiry time.Duration) ([]Member, error) {
	var rows []memberRow
	if err := db.WithContext(ctx).Raw(listSQL, within.Microseconds()).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("discovery: list: %w", err)
	}
	out := make([]Member, 0, len(rows))
	for _, r := range rows {
		age := time.Duration(r.AgeUS) * time.Microsecond
		out = append(out, Member{ID: r.ID, Kind: Kind(r.Kind), URL: r.URL, PID: r.PID,
			StartedAt: time.UnixMicro(r.StartedUS).UTC(), LastSeen: time.UnixMicro(r.SeenUS).UTC(),
			Age: age, Alive: age <= expiry})
	}
	return out, nil
}
