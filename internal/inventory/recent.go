package inventory

import (
	"context"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// SaleInvariants is a sale's oversell and lost updates, counted as View
// counts them (statsOf), without the sections' cycle.
type SaleInvariants struct {
	SaleID      uint64
	Strategy    string
	Watchdog    bool
	Oversold    int64
	LostUpdates int64
}

// RecentInvariants returns the invariants of the newest limit sales in one
// query: what /metrics reports at every scrape (metrics.SaleTruth).
func (s *Store) RecentInvariants(ctx context.Context, limit int) ([]SaleInvariants, error) {
	var rows []struct {
		Sale
		Sold int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT s.*, (SELECT COUNT(*) FROM orders o WHERE o.sale_id = s.id AND o.status <> ?) AS sold
		FROM (SELECT * FROM sales ORDER BY id DESC LIMIT ?) s`, StatusExpired, limit).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	sales := make([]Sale, len(rows))
	for i, r := range rows {
		sales[i] = r.Sale
	}
	if err := sumShards(ctx, s.db, sales); err != nil {
		return nil, err
	}
	out := make([]SaleInvariants, 0, len(rows))
	for i, r := range rows {
		r.Sale = sales[i]
		st := statsOf(r.Sale, r.Sold, 0, sectionlog.Cycle{})
		out = append(out, SaleInvariants{SaleID: r.ID, Strategy: r.Strategy, Watchdog: r.Watchdog,
			Oversold: st.Oversold, LostUpdates: st.LostUpdates})
	}
	return out, nil
}
