// Package timeline draws a sale's run from the database: its critical
// sections in lanes (one per replica, one row per holder within it), the
// overlapping pairs, the lease and fault events, the stock over time and a
// narration of the decisive moments (GET /api/sales/{id}/timeline). Past
// MaxSections in the window it answers per time bucket instead.
package timeline

import (
	"strconv"
	"time"
)

// MaxSections is the bound past which a window is summarised per bucket.
const MaxSections = 5000

// Buckets is about how many buckets a summarised window is cut into.
const Buckets = 200

// Millis is a time as milliseconds since the Unix epoch with a microsecond
// fraction (1764161234567.123): the contract's times.
type Millis float64

// At is t as Millis.
func At(t time.Time) Millis { return Millis(float64(t.UnixMicro()) / 1000) }

// Time is m as a time.
func (m Millis) Time() time.Time { return time.UnixMicro(int64(float64(m)*1000 + 0.5)) }

// MarshalJSON writes m with three decimals, the microsecond.
func (m Millis) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(m), 'f', 3, 64), nil
}

// Timeline is the answer of GET /api/sales/{id}/timeline.
type Timeline struct {
	SaleID       uint64       `json:"sale_id"`
	Strategy     string       `json:"strategy"`
	Fencing      bool         `json:"fencing"`
	Watchdog     bool         `json:"watchdog"`
	TTLMS        int          `json:"ttl_ms"`
	WorkMS       int          `json:"work_ms"`
	InitialStock int64        `json:"initial_stock"`
	From         Millis       `json:"from"`
	To           Millis       `json:"to"`
	Summarised   bool         `json:"summarised"`
	BucketMS     float64      `json:"bucket_ms"`
	Replicas     []string     `json:"replicas"`
	Sections     []Section    `json:"sections"`
	Overlaps     []Overlap    `json:"overlaps"`
	Leases       []LeaseEvent `json:"leases"`
	Faults       []Fault      `json:"faults"`
	// FaultEffects says per fault whether the sale took damage, else why not.
	FaultEffects []FaultEffect `json:"fault_effects"`
	Stock        []StockPoint  `json:"stock"`
	Buckets      []Bucket      `json:"buckets"`
	Violations   Violations    `json:"violations"`
	Narration    []Line        `json:"narration"`
	// Combine: the sale sells the buyers waiting for its lock in batches
	// of at most CombineMaxBatch (its sections' Buyers and Orders).
	Combine         bool `json:"combine,omitempty"`
	CombineMaxBatch int  `json:"combine_max_batch,omitempty"`

	ranks tokenRanks // the sale's tokens, for the narration's "#4"
}

// Section is one critical section in its lane.
type Section struct {
	ID      uint64 `json:"id"`
	Replica string `json:"replica"`
	Lane    int    `json:"lane"`
	Token   uint64 `json:"token"`
	// TokenRank is Token's place among the sale's distinct tokens, 1 for
	// the first grant (0: no token); TokenRaw is Token in decimal, exact
	// where a JSON number past 2^53 is not (JavaScript).
	TokenRank int     `json:"token_rank"`
	TokenRaw  string  `json:"token_raw,omitempty"`
	WaitAt    *Millis `json:"wait_at"`
	EnterAt   Millis  `json:"enter_at"`
	ExitAt    Millis  `json:"exit_at"`
	OrderID   *uint64 `json:"order_id"`
	Outcome   string  `json:"outcome"`
	// Buyers and Orders: a section that sold a batch (combining) served
	// Buyers buyers and made Orders orders; absent for one order.
	Buyers int `json:"buyers,omitempty"`
	Orders int `json:"orders,omitempty"`
}

// Overlap is a section (B) that entered while another (A) held the lock:
// the interval both held it and the orders they made.
type Overlap struct {
	A      uint64   `json:"a"`
	B      uint64   `json:"b"`
	From   Millis   `json:"from"`
	To     Millis   `json:"to"`
	Orders []uint64 `json:"orders"`
}

// LeaseEvent is a lease's event as its client saw it.
type LeaseEvent struct {
	Replica string `json:"replica"`
	Token   uint64 `json:"token"`
	// TokenRank is as a Section's.
	TokenRank int    `json:"token_rank"`
	Event     string `json:"event"`
	At        Millis `json:"at"`
	TTLMS     int64  `json:"ttl_ms"`
}

// Fault is a fault's window.
type Fault struct {
	Kind    string  `json:"kind"`
	Replica string  `json:"replica"`
	Target  string  `json:"target"`
	From    Millis  `json:"from"`
	To      *Millis `json:"to"`
}

// StockPoint is the stock after an order (or at the start).
type StockPoint struct {
	At    Millis `json:"at"`
	Stock int64  `json:"stock"`
}

// Bucket summarises the sections that entered in [From, To).
type Bucket struct {
	From     Millis `json:"from"`
	To       Millis `json:"to"`
	Sections int    `json:"sections"`
	Overlaps int    `json:"overlaps"`
	Fenced   int    `json:"fenced"`
}

// Violations is the sale's exclusion-violation count and what it counts.
type Violations struct {
	Count  int64 `json:"count"`
	Pairs  int   `json:"pairs"`
	Counts Text  `json:"counts"`
}

// Text is one text in English and Chinese.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Line is one line of the narration.
type Line struct {
	At      Millis  `json:"at"`
	En      string  `json:"en"`
	Zh      string  `json:"zh"`
	Section *uint64 `json:"section"`
}

// countsText says what Violations.Count and Pairs count (sectionlog.EachOverlap).
var countsText = Text{
	En: "critical sections of this sale that began while an earlier-begun one still held the lock, each counted " +
		"once, over the whole sale (the sale's exclusion violations); pairs: the overlaps listed in this window, " +
		"each such section with the earlier holder it ran beside",
	Zh: "本秒杀活动中，在更早开始的临界区仍持有锁时开始的临界区个数，每个只计一次，覆盖整个活动（即互斥违例数）；" +
		"重叠的临界区对：本时间窗口内列出的每个这样的临界区与它并行的那个更早的持锁者",
}
