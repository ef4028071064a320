package runs

import (
	"testing"

	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/metrics"
)

func TestLimitOf(t *testing.T) {
	server := &metrics.SaleLive{Requests: 1000, Outcomes: map[string]int64{"ok": 100, "sold_out": 880, "lock_timeout": 20},
		Latency: metrics.Percentiles{Mean: 10}, LockWait: metrics.Percentiles{Mean: 8}}
	l := limitOf("redis", server, 4)
	// 980 sections in 4 s = 245/s; a holder costs 10-8 = 2 ms, so the limit is 500/s.
	if l == nil || l.SectionsPerS != 245 || l.ServiceMS != 2 || l.LimitPerS != 500 || l.Ratio != 0.49 {
		t.Fatalf("limitOf(redis) = %+v", l)
	}
	for _, name := range []string{"none", "db-conditional", "db-optimistic", "redis-lua-stock", "no-such-strategy"} {
		if l := limitOf(name, server, 4); l != nil {
			t.Errorf("%s takes no lock, but got a limit %+v", name, l)
		}
	}
	if l := limitOf("redis", server, 0); l != nil {
		t.Errorf("no duration yet, but got %+v", l)
	}
}
