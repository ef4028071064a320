package timeline

import (
	"context"
	"math"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Build reads sale's timeline over [from, to]; a zero bound means from the
// first section's wait (or entry) or to the last exit (now, with none).
func Build(ctx context.Context, db *gorm.DB, sale inventory.Sale, from, to time.Time) (Timeline, error) {
	sections, err := loadSections(ctx, db, sale.ID, window{from, to})
	if err != nil {
		return Timeline{}, err
	}
	w := settle(window{from, to}, sections, sale)
	t := Timeline{SaleID: sale.ID, Strategy: sale.Strategy, Fencing: sale.Fencing, Watchdog: sale.Watchdog,
		TTLMS: sale.TTLMS, WorkMS: sale.WorkMS, InitialStock: sale.InitialStock, From: At(w.from), To: At(w.to),
		Replicas: []string{}, Sections: []Section{}, Overlaps: []Overlap{}, Leases: []LeaseEvent{},
		Faults: []Fault{}, Stock: []StockPoint{}, Buckets: []Bucket{}, Narration: []Line{}}
	t.Violations.Counts = countsText
	if sale.Combine {
		t.Combine, t.CombineMaxBatch = true, sale.CombineMaxBatch
	}
	if from.IsZero() && to.IsZero() {
		t.Violations.Count = sectionlog.EachOverlap(sections, nil) // the window is the whole sale
	} else if t.Violations.Count, err = sectionlog.Violations(ctx, db, sale.ID); err != nil {
		return Timeline{}, err
	}
	t.Replicas, t.Sections = lanes(sections)
	t.Overlaps = overlaps(sections)
	t.Violations.Pairs = len(t.Overlaps)
	if len(sections) > MaxSections {
		t.Summarised = true
		t.BucketMS, t.Buckets = buckets(w, sections)
		t.Sections = []Section{}
	}
	if err := t.addEvents(ctx, db, w); err != nil {
		return Timeline{}, err
	}
	ranks, err := t.saleTokens(ctx, db, sections, from.IsZero() && to.IsZero())
	if err != nil {
		return Timeline{}, err
	}
	t.rankTokens(ranks)
	orders, err := loadOrderTimes(ctx, db, sale.ID)
	if err != nil {
		return Timeline{}, err
	}
	t.Stock = stockLine(sale.InitialStock, orders, w)
	t.Narration = narrate(t, sections)
	t.FaultEffects = faultEffects(t, sections, damageOf(sale, len(orders)))
	return t, nil
}

// damageOf is the sale's damage by the database's truth: sold is the
// count of its orders (docs/ARCHITECTURE.md, Truth from the database).
func damageOf(sale inventory.Sale, sold int) Damage {
	d := Damage{Oversold: max(0, int64(sold)-sale.InitialStock)}
	d.LostUpdates = int64(sold) - (sale.InitialStock - sale.Stock)
	if d.LostUpdates < 0 {
		d.LostUpdates = -d.LostUpdates
	}
	return d
}

// settle closes the open bounds of w on the sections found (or the sale's
// creation and now, with none).
func settle(w window, sections []sectionlog.Section, sale inventory.Sale) window {
	if w.from.IsZero() {
		w.from = sale.CreatedAt
		for _, s := range sections {
			first := s.EnterAt
			if s.WaitAt != nil && s.WaitAt.Before(first) {
				first = *s.WaitAt
			}
			if w.from.Equal(sale.CreatedAt) || first.Before(w.from) {
				w.from = first
			}
		}
	}
	if w.to.IsZero() {
		w.to = time.Now()
		if len(sections) > 0 {
			w.to = sections[0].ExitAt
			for _, s := range sections {
				if s.ExitAt.After(w.to) {
					w.to = s.ExitAt
				}
			}
		}
	}
	return w
}

// lanes places each section on the smallest row of its replica free at its
// entry (sections in entry order); replicas in name order.
func lanes(sections []sectionlog.Section) ([]string, []Section) {
	busy := map[string][]time.Time{} // replica -> each row's last exit
	out := make([]Section, len(sections))
	for i, s := range sections {
		rows := busy[s.ReplicaID]
		lane := slices.IndexFunc(rows, func(exit time.Time) bool { return !exit.After(s.EnterAt) })
		if lane < 0 {
			lane = len(rows)
			rows = append(rows, time.Time{})
		}
		rows[lane] = s.ExitAt
		busy[s.ReplicaID] = rows
		out[i] = Section{ID: s.ID, Replica: s.ReplicaID, Lane: lane, Token: s.Token, EnterAt: At(s.EnterAt),
			ExitAt: At(s.ExitAt), OrderID: s.OrderID, Outcome: s.Outcome, Buyers: s.BatchBuyers, Orders: s.BatchOrders}
		if s.WaitAt != nil {
			w := At(*s.WaitAt)
			out[i].WaitAt = &w
		}
		if out[i].Outcome == "" {
			out[i].Outcome = sectionlog.OutcomeUnknown
		}
	}
	replicas := make([]string, 0, len(busy))
	for r := range busy {
		replicas = append(replicas, r)
	}
	slices.Sort(replicas)
	return replicas, out
}

// maxOverlaps bounds the pairs one answer lists.
const maxOverlaps = 5000

// overlaps lists each section that entered while another held the lock,
// with that holder (sectionlog.EachOverlap, the violation detector).
func overlaps(sections []sectionlog.Section) []Overlap {
	out := []Overlap{}
	sectionlog.EachOverlap(sections, func(held, entered int) {
		if len(out) >= maxOverlaps {
			return
		}
		a, b := sections[held], sections[entered]
		end := a.ExitAt
		if b.ExitAt.Before(end) {
			end = b.ExitAt
		}
		o := Overlap{A: a.ID, B: b.ID, From: At(b.EnterAt), To: At(end), Orders: []uint64{}}
		for _, id := range []*uint64{a.OrderID, b.OrderID} {
			if id != nil {
				o.Orders = append(o.Orders, *id)
			}
		}
		out = append(out, o)
	})
	return out
}

// buckets summarises the sections per time bucket (about Buckets of them).
func buckets(w window, sections []sectionlog.Section) (float64, []Bucket) {
	span := float64(w.to.Sub(w.from).Microseconds()) / 1000
	size := math.Max(1, math.Ceil(span/Buckets))
	n := int(math.Ceil(span/size)) + 1
	out := make([]Bucket, n)
	start := At(w.from)
	for i := range out {
		out[i].From, out[i].To = start+Millis(float64(i)*size), start+Millis(float64(i+1)*size)
	}
	index := func(t time.Time) int {
		return min(n-1, max(0, int(float64(At(t)-start)/size)))
	}
	for _, s := range sections {
		b := &out[index(s.EnterAt)]
		b.Sections++
		if s.Outcome == sectionlog.OutcomeFenced {
			b.Fenced++
		}
	}
	sectionlog.EachOverlap(sections, func(_, entered int) { out[index(sections[entered].EnterAt)].Overlaps++ })
	return size, out
}

// stockLine is the stock the orders leave, initial minus those made so
// far: a point at the window's start, then one after each order in it (at
// most MaxSections: past that, the last of each equal slice of the window).
func stockLine(initial int64, orders []time.Time, w window) []StockPoint {
	before := 0
	for before < len(orders) && orders[before].Before(w.from) {
		before++
	}
	out := []StockPoint{{At: At(w.from), Stock: initial - int64(before)}}
	var in []StockPoint
	for i := before; i < len(orders) && !orders[i].After(w.to); i++ {
		in = append(in, StockPoint{At: At(orders[i]), Stock: initial - int64(i+1)})
	}
	if len(in) <= MaxSections {
		return append(out, in...)
	}
	step := float64(len(in)) / MaxSections
	for k := 1; k <= MaxSections; k++ {
		out = append(out, in[int(float64(k)*step)-1])
	}
	return out
}

// addEvents adds the lease and fault events of window w.
func (t *Timeline) addEvents(ctx context.Context, db *gorm.DB, w window) error {
	leases, err := loadLeases(ctx, db, t.SaleID, w)
	if err != nil {
		return err
	}
	for _, l := range leases {
		t.Leases = append(t.Leases, LeaseEvent{Replica: l.ReplicaID, Token: l.Token, Event: l.Event, At: At(l.At),
			TTLMS: l.TTLMS})
	}
	faults, err := loadFaults(ctx, db, t.SaleID, w)
	if err != nil {
		return err
	}
	for _, f := range faults {
		x := Fault{Kind: f.Kind, Replica: f.ReplicaID, Target: f.Target, From: At(f.FromAt)}
		if f.ToAt != nil {
			to := At(*f.ToAt)
			x.To = &to
		}
		t.Faults = append(t.Faults, x)
	}
	return nil
}
