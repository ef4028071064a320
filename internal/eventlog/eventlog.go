// Package eventlog records what the timeline draws beside the critical
// sections: the faults injected into a replica (from injection to healing)
// and the lock leases as their clients saw them (granted, renewed, lost,
// expired, released). Written in the background, in batches, like the
// sections; lease events are bounded per sale. read.go: NewestFault, the
// newest fault of a kind in a window.
package eventlog

import (
	"log/slog"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/batchwrite"
)

// MaxLeaseEventsPerSale bounds the lease events one replica records per
// sale: a long run with a watchdog renewing every ttl/3 would otherwise
// write more events than sections. Events past it are dropped.
const MaxLeaseEventsPerSale = 20_000

// Fault is one fault injected into a replica: from its injection to its
// healing (To equals From for a fault without a duration).
type Fault struct {
	ID        uint64 `gorm:"primaryKey"`
	Kind      string
	ReplicaID string
	Target    string     // the node or point it aimed at; "" for the replica itself
	SaleID    *uint64    // the sale it aimed at; nil for the whole replica
	FromAt    time.Time  `gorm:"column:from_at"`
	ToAt      *time.Time `gorm:"column:to_at"`
}

// TableName is fault_events.
func (Fault) TableName() string { return "fault_events" }

// Lease is one event of a lock lease as its client saw it.
type Lease struct {
	ID        uint64 `gorm:"primaryKey"`
	SaleID    uint64
	ReplicaID string
	Token     uint64
	Event     string // lockstrategy.LeaseGranted, ...
	At        time.Time
	TTLMS     int64 `gorm:"column:ttl_ms"`
}

// TableName is lease_events.
func (Lease) TableName() string { return "lease_events" }

// Log writes events in the background, one writer a table. Recording never
// blocks: when the queue is full, or closed, the event is dropped, and so
// is a batch that failed (batchwrite.Drop: the timeline draws less, the
// order costs nothing more; events illustrate, they are not evidence).
type Log struct {
	faults *batchwrite.Writer[Fault]
	leases *batchwrite.Writer[Lease]
	// perSale counts the lease events queued per sale (MaxLeaseEventsPerSale).
	countMu sync.Mutex
	perSale map[uint64]int
}

// New starts the background writers; Close flushes and stops them.
func New(db *gorm.DB, log *slog.Logger) *Log {
	return &Log{
		faults:  batchwrite.New(batchwrite.Into[Fault](db), log, "fault events", batchwrite.Drop),
		leases:  batchwrite.New(batchwrite.Into[Lease](db), log, "lease events", batchwrite.Drop),
		perSale: map[uint64]int{},
	}
}

// Fault queues a fault event.
func (l *Log) Fault(f Fault) { l.faults.Record(f) }

// Lease queues a lease event, unless its sale has MaxLeaseEventsPerSale.
func (l *Log) Lease(e Lease) {
	if !l.admit(e.SaleID) {
		return
	}
	l.leases.Record(e)
}

func (l *Log) admit(sale uint64) bool {
	l.countMu.Lock()
	defer l.countMu.Unlock()
	if l.perSale[sale] >= MaxLeaseEventsPerSale {
		return false
	}
	l.perSale[sale]++
	return true
}

// Flush returns once every event recorded before it is written (or failed).
func (l *Log) Flush() {
	l.faults.Flush()
	l.leases.Flush()
}

// Close writes what is queued and stops the writers.
func (l *Log) Close() {
	l.faults.Close()
	l.leases.Close()
}
