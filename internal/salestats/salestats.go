// Package salestats reads and writes the sale_stats table: one row per
// (sale, replica) holding that replica's cumulative live figures for the
// sale, stamped with the database's clock. What the payload holds, and how
// figures are merged, is package metrics' business; this package only
// stores and fetches it.
package salestats

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Row is one replica's latest published figures for a sale.
type Row struct {
	ReplicaID string
	UpdatedAt time.Time // the database's clock at the last upsert, UTC
	Payload   []byte
}

// upsertSQL stamps updated_at with the database's clock, like discovery's
// heartbeats, so rows from replicas whose clocks disagree still compare.
const upsertSQL = `INSERT INTO sale_stats (sale_id, replica_id, updated_at, payload)
VALUES (?, ?, UTC_TIMESTAMP(6), ?)
ON DUPLICATE KEY UPDATE updated_at = VALUES(updated_at), payload = VALUES(payload)`

// Upsert stores payload as replicaID's figures for saleID, replacing its
// previous row.
func Upsert(ctx context.Context, db *gorm.DB, saleID uint64, replicaID string, payload []byte) error {
	return db.WithContext(ctx).Exec(upsertSQL, saleID, replicaID, payload).Error
}

// Own returns replicaID's stored payload for saleID; nil when it has none.
func Own(ctx context.Context, db *gorm.DB, saleID uint64, replicaID string) ([]byte, error) {
	var rows []struct{ Payload []byte }
	if err := db.WithContext(ctx).Raw("SELECT payload FROM sale_stats WHERE sale_id = ? AND replica_id = ?",
		saleID, replicaID).Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return rows[0].Payload, nil
}

// forSaleSQL reads every replica's row of a sale. updated_at comes back as
// microseconds since the epoch computed by the database (as in discovery),
// so neither parseTime nor the DSN's loc matters.
const forSaleSQL = `SELECT replica_id,
  TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', updated_at) AS updated_us, payload
FROM sale_stats WHERE sale_id = ? ORDER BY replica_id`

// ForSale returns every replica's row for saleID, by replica id; none (not
// an error) when nobody has published for it yet.
func ForSale(ctx context.Context, db *gorm.DB, saleID uint64) ([]Row, error) {
	var rows []struct {
		ReplicaID string
		UpdatedUS int64
		Payload   []byte
	}
	if err := db.WithContext(ctx).Raw(forSaleSQL, saleID).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("salestats: load sale %d: %w", saleID, err)
	}
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		out = append(out, Row{ReplicaID: r.ReplicaID, UpdatedAt: time.UnixMicro(r.UpdatedUS).UTC(), Payload: r.Payload})
	}
	return out, nil
}
