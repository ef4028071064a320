// Package eventlog records what the timeline draws beside the critical
// sections: the faults injected into a replica (from injection to healing)
// and the lock leases as their clients saw them (granted, renewed, lost,
// expired, released). Written in the background, in batches, like the
// sections; lease events are bounded per sale.
package eventlog

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"gorm.io/gorm"
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

// Log writes events in the background. Recording never blocks: when the
// queue is full the event is dropped (the timeline draws less, the order
// costs nothing more).
type Log struct {
	db     *gorm.DB
	log    *slog.Logger
	ch     chan any // Fault, Lease, or a chan struct{} to close once written
	done   chan struct{}
	mu     sync.RWMutex
	closed bool
	// perSale counts the lease events queued per sale (MaxLeaseEventsPerSale).
	countMu sync.Mutex
	perSale map[uint64]int
}

// New starts the background writer; Close flushes and stops it.
func New(db *gorm.DB, log *slog.Logger) *Log {
	l := &Log{db: db, log: log, ch: make(chan any, 4096), done: make(chan struct{}), perSale: map[uint64]int{}}
	go l.run()
	return l
}

// Fault queues a fault event.
func (l *Log) Fault(f Fault) { l.send(f) }

// Lease queues a lease event, unless its sale has MaxLeaseEventsPerSale.
func (l *Log) Lease(e Lease) {
	if !l.admit(e.SaleID) {
		return
	}
	l.send(e)
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

func (l *Log) send(v any) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return
	}
	select {
	case l.ch <- v:
	default:
	}
}

// Flush returns once every event recorded before it is written (or failed).
func (l *Log) Flush() {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return
	}
	ack := make(chan struct{})
	l.ch <- ack
	<-ack
}

// Close writes what is queued and stops the writer.
func (l *Log) Close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.ch)
	}
	l.mu.Unlock()
	<-l.done
}

func (l *Log) run() {
	defer close(l.done)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var faults []Fault
	var leases []Lease
	flush := func() {
		write(l, &faults)
		write(l, &leases)
	}
	for {
		select {
		case v, ok := <-l.ch:
			if !ok {
				flush()
				return
			}
			switch e := v.(type) {
			case Fault:
				faults = append(faults, e)
			case Lease:
				if leases = append(leases, e); len(leases) >= 500 {
					flush()
				}
			case chan struct{}:
				flush()
				close(e)
			}
		case <-tick.C:
			flush()
		}
	}
}

// write inserts the batch and empties it; a failure is logged and the
// batch dropped (events illustrate, they are not evidence).
func write[T any](l *Log, batch *[]T) {
	if len(*batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.db.WithContext(ctx).CreateInBatches(*batch, 500).Error; err != nil {
		l.log.Warn("recording timeline events", "n", len(*batch), "err", err)
	}
	*batch = (*batch)[:0]
}
