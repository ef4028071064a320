package inventory

import (
	"context"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Views is View for many sales at once, in three grouped queries whatever
// their number (one per figure: sold, duplicates, sections), rather than
// three per sale. It answers exactly what View answers for each sale, in
// the order given.
func (s *Store) Views(ctx context.Context, sales []Sale) ([]SaleView, error) {
	out := make([]SaleView, 0, len(sales))
	if len(sales) == 0 {
		return out, nil
	}
	ids := make([]uint64, 0, len(sales))
	var limited []uint64 // the sales with a per-user limit: only they have duplicates
	for _, sl := range sales {
		ids = append(ids, sl.ID)
		if sl.PerUserLimit > 0 {
			limited = append(limited, sl.ID)
		}
	}
	sold, err := s.soldBySale(ctx, ids)
	if err != nil {
		return nil, err
	}
	dups, err := s.duplicatesBySale(ctx, limited)
	if err != nil {
		return nil, err
	}
	cycles, err := sectionlog.LoadCycles(ctx, s.db, ids)
	if err != nil {
		return nil, err
	}
	for _, sl := range sales {
		out = append(out, NewSaleView(sl, statsOf(sl, sold[sl.ID], dups[sl.ID], cycles[sl.ID])))
	}
	return out, nil
}

// countRow is one sale's count in a grouped query.
type countRow struct {
	SaleID uint64
	N      int64
}

// soldBySale counts each sale's orders that are not expired (an expired
// reservation gave its unit back); a sale without any has no entry.
func (s *Store) soldBySale(ctx context.Context, ids []uint64) (map[uint64]int64, error) {
	var rows []countRow
	err := s.db.WithContext(ctx).Raw(`SELECT sale_id, COUNT(*) AS n FROM orders
		WHERE sale_id IN ? AND status <> ? GROUP BY sale_id`, ids, StatusExpired).Scan(&rows).Error
	return byID(rows), err
}

// duplicatesBySale counts, for each sale, the users with more orders (of
// any status) than the sale's per-user limit; a sale without any has no
// entry. The limit is the sale's row's: it never changes after creation.
func (s *Store) duplicatesBySale(ctx context.Context, ids []uint64) (map[uint64]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []countRow
	err := s.db.WithContext(ctx).Raw(`SELECT d.sale_id, COUNT(*) AS n FROM (
		SELECT o.sale_id FROM orders o JOIN sales s ON s.id = o.sale_id
		WHERE o.sale_id IN ? GROUP BY o.sale_id, o.user_id HAVING COUNT(*) > MAX(s.per_user_limit)) d
		GROUP BY d.sale_id`, ids).Scan(&rows).Error
	return byID(rows), err
}

func byID(rows []countRow) map[uint64]int64 {
	out := make(map[uint64]int64, len(rows))
	for _, r := range rows {
		out[r.SaleID] = r.N
	}
	return out
}
