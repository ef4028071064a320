package sectionlog

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"gorm.io/gorm"
)

// Cycle is what one lock's recorded sections say about its capacity. An
// exclusive lock runs one section at a time and, between two of them, hands
// itself over: released by one holder, granted to the next. So it completes
// at most one section per (mean hold + mean hand-over), its physical limit,
// whatever the scheduling. Only hand-overs to a buyer who was already
// waiting at the release count: a gap with nobody waiting is idle time the
// lock could not use, not a cost of the lock.
type Cycle struct {
	Sections   int64   `json:"sections"`
	HoldMS     float64 `json:"hold_ms"`     // mean enter→exit
	Handovers  int64   `json:"handovers"`   // releases with a buyer already waiting
	HandoverMS float64 `json:"handover_ms"` // mean release→next entry over those
	SpanMS     float64 `json:"span_ms"`     // first entry → last exit
	// Overlaps are sections that began before an earlier one ended: the
	// lock did not exclude (Violations).
	Overlaps int64 `json:"overlaps"`
	// Orders are the orders the sections made: one per section without
	// combining, up to a batch per section with it.
	Orders int64 `json:"orders"`
	// UnitsPerHold is Orders per section: the units one acquisition of
	// the lock sold (1 or less without combining).
	UnitsPerHold float64 `json:"units_per_hold"`
}

// LimitPerS is 1000 / (mean hold + mean hand-over): the most sections per
// second this lock can complete; 0 before any section.
func (c Cycle) LimitPerS() float64 {
	if c.Sections == 0 || c.HoldMS+c.HandoverMS <= 0 {
		return 0
	}
	return 1000 / (c.HoldMS + c.HandoverMS)
}

// SectionsPerS is the sections completed per second of the run's span. The
// span is charged one hand-over more than it saw: n sections at the limit
// take n holds and n hand-overs (the last holder's release is owed too), so
// a run that kept the lock busy scores exactly its limit.
func (c Cycle) SectionsPerS() float64 {
	if span := c.SpanMS + c.HandoverMS; c.Sections > 0 && span > 0 {
		return float64(c.Sections) * 1000 / span
	}
	return 0
}

// Ratio is SectionsPerS / LimitPerS: 1 when the lock was never free while a
// buyer waited (it was the bottleneck), less when it sat idle with nobody
// waiting (the load, or the work outside the lock, limited the run). For an
// exclusive lock it cannot exceed 1 by more than noise; above that, sections
// overlapped (see Violations).
func (c Cycle) Ratio() float64 {
	if l := c.LimitPerS(); l > 0 {
		return c.SectionsPerS() / l
	}
	return 0
}

// CycleOf summarises sections of one lock. Sections without WaitAt count
// as not waiting.
func CycleOf(sections []Section) Cycle {
	s := append([]Section(nil), sections...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].EnterAt.Before(s[j].EnterAt) })
	var c Cycle
	var hold, handover time.Duration
	// firstWait[i] is the earliest wait start among sections i.. (entering
	// at or after section i): was anyone waiting when the lock came free?
	firstWait := make([]time.Time, len(s)+1)
	for i := len(s) - 1; i >= 0; i-- {
		firstWait[i] = firstWait[i+1]
		if w := s[i].WaitAt; w != nil && (firstWait[i].IsZero() || w.Before(firstWait[i])) {
			firstWait[i] = *w
		}
	}
	c.Overlaps = EachOverlap(s, nil)
	var lastExit time.Time
	for i, x := range s {
		c.Orders += x.Orders()
		hold += x.ExitAt.Sub(x.EnterAt)
		if i > 0 && !firstWait[i].IsZero() && !firstWait[i].After(lastExit) {
			c.Handovers++
			handover += max(x.EnterAt.Sub(lastExit), 0)
		}
		if x.ExitAt.After(lastExit) {
			lastExit = x.ExitAt
		}
	}
	c.Sections = int64(len(s))
	if c.Sections == 0 {
		return c
	}
	c.HoldMS = ms(hold) / float64(c.Sections)
	c.UnitsPerHold = float64(c.Orders) / float64(c.Sections)
	if c.Handovers > 0 {
		c.HandoverMS = ms(handover) / float64(c.Handovers)
	}
	c.SpanMS = ms(lastExit.Sub(s[0].EnterAt))
	return c
}

// EachOverlap is the violation detector, one pass over sections in entry
// order with a running maximum of exits: a section that began before an
// earlier-begun one had ended overlaps it. It counts each such section once
// and, when fn is not nil, calls fn(held, entered) with the indexes of the
// overlapping section and of the earlier one still held then whose exit is
// the latest (the holder it ran beside).
func EachOverlap(sorted []Section, fn func(held, entered int)) int64 {
	var n int64
	latest := -1
	for i, x := range sorted {
		if latest >= 0 && x.EnterAt.Before(sorted[latest].ExitAt) {
			n++
			if fn != nil {
				fn(latest, i)
			}
		}
		if latest < 0 || x.ExitAt.After(sorted[latest].ExitAt) {
			latest = i
		}
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// LoadCycle is CycleOf over the sale's recorded sections, read in entry
// order along the (sale_id, enter_at) index. Computed here rather than in
// SQL: MariaDB evaluates a running MIN or MAX window frame by rescanning it,
// quadratic in the sections (tens of seconds for 20,000), while reading
// them is milliseconds.
func LoadCycle(ctx context.Context, db *gorm.DB, saleID uint64) (Cycle, error) {
	cycles, err := LoadCycles(ctx, db, []uint64{saleID})
	return cycles[saleID], err
}

// LoadCycles is LoadCycle for many sales in one query: their sections are
// read sale by sale, each sale's in entry order, and summarised as they
// stream by (one sale's sections in memory at a time). A sale without
// sections has no entry: its Cycle is the zero one.
func LoadCycles(ctx context.Context, db *gorm.DB, saleIDs []uint64) (map[uint64]Cycle, error) {
	out := make(map[uint64]Cycle, len(saleIDs))
	if len(saleIDs) == 0 {
		return out, nil
	}
	rows, err := db.WithContext(ctx).Raw(`SELECT sale_id, wait_at, enter_at, exit_at, order_id, batch_buyers, batch_orders FROM critical_sections
		WHERE sale_id IN ? ORDER BY sale_id, enter_at, id`, saleIDs).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sections []Section
	var sale uint64
	for rows.Next() {
		var s Section
		var wait sql.NullTime
		var order sql.NullInt64
		if err := rows.Scan(&s.SaleID, &wait, &s.EnterAt, &s.ExitAt, &order, &s.BatchBuyers, &s.BatchOrders); err != nil {
			return nil, err
		}
		if order.Valid {
			id := uint64(order.Int64)
			s.OrderID = &id
		}
		if s.SaleID != sale && len(sections) > 0 {
			out[sale] = CycleOf(sections)
			sections = sections[:0]
		}
		sale = s.SaleID
		if wait.Valid {
			s.WaitAt = &wait.Time
		}
		sections = append(sections, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(sections) > 0 {
		out[sale] = CycleOf(sections)
	}
	return out, nil
}
