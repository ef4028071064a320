package dblock

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Row is a key's lock_table row as db-lock-table and db-lock-table-plain
// leave it: the lessons read it to see a lock held, counted, left by a
// crashed holder, or taken over.
type Row struct {
	Present bool   `json:"present"`
	Owner   string `json:"owner,omitempty"`
	Holds   int64  `json:"holds,omitempty"`
	// ExpiresInMS is how long until the row may be reclaimed, by the
	// database's clock: negative once it has expired.
	ExpiresInMS int64 `json:"expires_in_ms,omitempty"`
}

// ReadRow reads key's lock_table row; Present is false when there is none.
func ReadRow(ctx context.Context, db *sql.DB, key string) (Row, error) {
	var (
		r      = Row{Present: true}
		leftUS int64
	)
	err := db.QueryRowContext(ctx, "SELECT owner, holds, TIMESTAMPDIFF(MICROSECOND, NOW(6), expires_at) "+
		"FROM lock_table WHERE lock_key = ?", key).Scan(&r.Owner, &r.Holds, &leftUS)
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, nil
	}
	if err != nil {
		return Row{}, err
	}
	r.ExpiresInMS = (time.Duration(leftUS) * time.Microsecond).Milliseconds()
	return r, nil
}
