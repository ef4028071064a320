package order_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
)

// BenchmarkReservedGroupCommit sells 1,000 units of redis-lua-stock to 64
// concurrent buyers on one replica (benchSale), work_ms 1, with the group
// commit off (each unit its own transaction), on with its 1 ms gathering
// wait, and on without the wait (a batch is what piled up while the last
// one committed):
//
//	go test -run '^$' -bench BenchmarkReservedGroupCommit -benchtime 1x ./internal/order/
func BenchmarkReservedGroupCommit(b *testing.B) {
	store, lockers, _ := newService(b, "bench-gc")
	for _, c := range []struct {
		name  string
		batch int
		wait  time.Duration
	}{{"off", 1, 0}, {"on", 0, 0}, {"on/no-wait", 0, time.Nanosecond}} {
		b.Run(c.name, func(b *testing.B) {
			svc := order.NewService(order.Config{ReplicaID: "bench-gc", ReservedBatch: c.batch, ReservedBatchWait: c.wait},
				store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
			defer svc.Close()
			for range b.N {
				benchSale(b, store, lockers, svc, "redis-lua-stock", 1)
			}
		})
	}
}
