// Package herd reads a sale's herd figures from the shared store: how long
// the stock lasted (from the orders' times), the first second after the
// opening and the answers per layer (from the live figures every replica
// publishes). GET /api/sales/{id}/herd serves them, the dashboard's Herd
// panel draws them and `loadtest herd` prints them, so all three agree.
package herd

import (
	"context"
	"math"
	"sort"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Layers lists the layers that answer an order, in the order a request
// meets them: the guards, cheapest first, then the order flow.
var Layers = []string{guard.LayerOpening, guard.LayerTicket, guard.LayerRateLimit, guard.LayerIdempotency,
	guard.LayerSoldOutCache, order.LayerLock, order.LayerDatabase, order.LayerStore, order.LayerQueue}

// View is a sale's herd.
type View struct {
	SaleID uint64 `json:"sale_id"`
	// Strategy, OrderMode, Combine and CombineMaxBatch are the sale's own
	// (GET /api/sales/{id}): what a herd beside another differs by.
	Strategy        string    `json:"strategy"`
	OrderMode       string    `json:"order_mode"`
	Combine         bool      `json:"combine"`
	CombineMaxBatch int       `json:"combine_max_batch"`
	OpensAt         time.Time `json:"opens_at"`
	InitialStock    int64     `json:"initial_stock"`
	Sold            int64     `json:"sold"`
	SoldOut         bool      `json:"sold_out"` // every unit of the initial stock sold
	// Lock says the sale's orders run under a lock: its strategy is of
	// kind "lock" (GET /api/strategies) and its orders are not queued.
	// Then Holds is how many times the lock was held (the recorded critical
	// sections), HoldUnits the units those holds sold and UnitsPerHold
	// their ratio (1 or less without combining, up to a batch with it;
	// 0 before any hold): the sale view's lock_cycle, in one request.
	// Without a lock (lock-free, redis-lua-stock, the queue) all three are 0.
	Lock         bool    `json:"lock"`
	Holds        int64   `json:"holds"`
	HoldUnits    int64   `json:"hold_units"`
	UnitsPerHold float64 `json:"units_per_hold"`
	// FirstOrderAt and LastOrderAt are the first and the last unit sold
	// (a queued order counts from its 202); null before any order.
	FirstOrderAt *time.Time `json:"first_order_at"`
	LastOrderAt  *time.Time `json:"last_order_at"`
	// SellOutMS runs from the opening to the last unit sold,
	// SellOutFromFirstMS from the first unit sold to the last; both null
	// until the sale is sold out.
	SellOutMS          *float64    `json:"sell_out_ms"`
	SellOutFromFirstMS *float64    `json:"sell_out_from_first_ms"`
	FirstSecond        FirstSecond `json:"first_second"`
	// Answers is every answer the shop gave (the live figures' requests),
	// Layers the same answers by the layer that gave them.
	Answers int64        `json:"answers"`
	Layers  []LayerCount `json:"layers"`
}

// FirstSecond is the answers to the requests that arrived in the second
// after the opening: orders (201 and 202), sold-out answers, the others
// (refusals and errors), and the shop's answer time: inside the shop, from
// the request's arrival to its answer, without the network. P50MS and
// P99MS are of every answer; OrdersP50MS/OrdersP99MS of the orders alone
// and SoldOutP50MS/SoldOutP99MS of the sold-out answers alone, null when
// there were none (or only in a replica's row written before the split
// was kept). The live histograms count whole microseconds from 1 µs up, at
// 3 significant digits: a value of 0.001 reads "under 2 µs".
type FirstSecond struct {
	Answers      int64        `json:"answers"`
	Orders       int64        `json:"orders"`
	SoldOut      int64        `json:"sold_out"`
	Others       int64        `json:"others"`
	P50MS        float64      `json:"p50_ms"`
	P99MS        float64      `json:"p99_ms"`
	OrdersP50MS  *float64     `json:"orders_p50_ms"`
	OrdersP99MS  *float64     `json:"orders_p99_ms"`
	SoldOutP50MS *float64     `json:"sold_out_p50_ms"`
	SoldOutP99MS *float64     `json:"sold_out_p99_ms"`
	Layers       []LayerCount `json:"layers"`
}

// LayerCount is the answers one layer gave and their share of all, in
// percent to one decimal.
type LayerCount struct {
	Layer   string  `json:"layer"`
	Count   int64   `json:"count"`
	Percent float64 `json:"percent"`
}

// Load reads sale's herd.
func Load(ctx context.Context, db *gorm.DB, sale inventory.Sale) (View, error) {
	v := View{SaleID: sale.ID, Strategy: sale.Strategy, OrderMode: sale.OrderMode, Combine: sale.Combine,
		CombineMaxBatch: sale.CombineMaxBatch, OpensAt: sale.OpensAt, InitialStock: sale.InitialStock, Layers: []LayerCount{}}
	span, err := inventory.SoldSpanOf(ctx, db, sale.ID)
	if err != nil {
		return v, err
	}
	v.Sold, v.FirstOrderAt, v.LastOrderAt = span.N, utc(span.First), utc(span.Last)
	v.SoldOut = sale.InitialStock > 0 && v.Sold >= sale.InitialStock
	if v.SoldOut && v.LastOrderAt != nil {
		v.SellOutMS = millis(v.LastOrderAt.Sub(sale.OpensAt))
		v.SellOutFromFirstMS = millis(v.LastOrderAt.Sub(*v.FirstOrderAt))
	}
	cycle, err := sectionlog.LoadCycle(ctx, db, sale.ID)
	if err != nil {
		return v, err
	}
	if v.Lock = locked(sale, cycle); v.Lock {
		v.Holds, v.HoldUnits, v.UnitsPerHold = cycle.Sections, cycle.Orders, cycle.UnitsPerHold
	}
	live, err := metrics.LoadMerged(ctx, db, sale.ID)
	if err != nil {
		return v, err
	}
	v.Answers, v.Layers = live.Requests, layerCounts(live.Layers)
	fs := live.FirstSecond
	v.FirstSecond = FirstSecond{Answers: fs.Requests, Orders: fs.Outcomes[order.OutcomeOK] + fs.Outcomes[order.OutcomeQueued],
		SoldOut: fs.Outcomes[order.OutcomeSoldOut], P50MS: fs.Latency.P50, P99MS: fs.Latency.P99, Layers: layerCounts(fs.Layers)}
	v.FirstSecond.Others = fs.Requests - v.FirstSecond.Orders - v.FirstSecond.SoldOut
	if fs.OrdersTimed > 0 {
		v.FirstSecond.OrdersP50MS, v.FirstSecond.OrdersP99MS = &fs.OrdersLatency.P50, &fs.OrdersLatency.P99
	}
	if fs.SoldOutTimed > 0 {
		v.FirstSecond.SoldOutP50MS, v.FirstSecond.SoldOutP99MS = &fs.SoldOutLatency.P50, &fs.SoldOutLatency.P99
	}
	return v, nil
}

// locked says whether sale's orders run under a lock: a strategy of kind
// lock whose orders are not queued. A strategy this build does not know
// is judged by its recorded sections: only a lock records any.
func locked(sale inventory.Sale, cycle sectionlog.Cycle) bool {
	if sale.OrderMode == inventory.OrderAsync {
		return false
	}
	s, err := lockstrategy.Lookup(sale.Strategy)
	if err != nil {
		return cycle.Sections > 0
	}
	return s.Kind() == lockstrategy.KindLock
}

// layerCounts lists the layers that answered, in Layers' order (a layer
// this build does not know comes last, by name), with their shares.
func layerCounts(by map[string]int64) []LayerCount {
	var total int64
	for _, n := range by {
		total += n
	}
	out := []LayerCount{}
	for _, l := range Layers {
		if n := by[l]; n > 0 {
			out = append(out, LayerCount{Layer: l, Count: n})
		}
	}
	var unknown []string
	for l, n := range by {
		if n > 0 && rank(l) < 0 {
			unknown = append(unknown, l)
		}
	}
	sort.Strings(unknown)
	for _, l := range unknown {
		out = append(out, LayerCount{Layer: l, Count: by[l]})
	}
	for i := range out {
		out[i].Percent = math.Round(float64(out[i].Count)*1000/float64(total)) / 10
	}
	return out
}

func rank(layer string) int {
	for i, l := range Layers {
		if l == layer {
			return i
		}
	}
	return -1
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// millis is d in milliseconds to the microsecond, never negative (an
// order made before the opening: the opening moved).
func millis(d time.Duration) *float64 {
	ms := float64(max(d, 0).Microseconds()) / 1000
	return &ms
}
