package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/load"
)

// TestAsyncRunAgainstShop runs an async sale through ONE real `shop serve`:
// every 202 is counted as accepted, its ticket followed to confirmed once
// the queue drained, and the database agrees (no oversell, no duplicate,
// no drift). A strategy that cannot queue orders fails the run with the
// shop's reason.
func TestAsyncRunAgainstShop(t *testing.T) {
	t.Parallel() // its own shop; waits on it most of the time
	shop := startShop(t)

	t.Run("redis-lua-stock: every ticket confirmed, exit 0", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out.json")
		code, stdout, stderr := runTool(t, "--targets", shop, "--strategy", "redis-lua-stock", "--order-mode", "async",
			"--pay-within-ms", "60000", "--stock", "20", "--buyers", "60", "--concurrency", "8",
			"--admin-token", testToken, "--json", path)
		if code != load.ExitOK {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		checkSchema(t, mustRead(t, path))
		r := decodeReport(t, mustRead(t, path)).Results[0]
		v := saleOf(t, r)
		if r.Accepted != 20 || r.SoldOut != 40 || r.Orders != 0 || r.HardErrors != 0 || r.Layers["queue"] != 20 {
			t.Errorf("accepted %d sold_out %d orders %d hard %d (errors %v, layers %v); want 20 accepted (layer queue), 40 sold_out",
				r.Accepted, r.SoldOut, r.Orders, r.HardErrors, r.Errors, r.Layers)
		}
		q := r.Queue
		if q == nil || !q.Drained || q.Tickets != 20 || q.Confirmed != 20 || q.Mismatched != 0 || q.Failed != 0 || q.Lost != 0 || q.Unsettled != 0 {
			t.Fatalf("queue %+v, want drained, 20 tickets all confirmed\n%s", q, stdout)
		}
		if q.Drift == nil || *q.Drift != 0 || q.ConfirmP99MS < q.ConfirmP50MS || q.ConfirmedPerS <= 0 {
			t.Errorf("queue figures %+v: want drift 0, p50 <= p99, confirmed/s > 0", q)
		}
		if v.Sold != 20 || v.Oversold != 0 || v.Duplicates != 0 || v.Queue == nil || v.Queue.InFlight != 0 || v.Queue.Confirmed != 20 {
			t.Errorf("database view %+v (queue %+v), want 20 sold, nothing in flight, nothing broken", v, v.Queue)
		}
		if rv := v.Reservations; rv == nil || rv.Reserved+rv.Paid+rv.Expired != 20 {
			t.Errorf("reservations %+v, want the 20 orders reserved for 60 s", rv)
		}
		if r.Verdict != load.VerdictOK || !strings.Contains(stdout, "confirmed 20") {
			t.Errorf("verdict %q; table:\n%s", r.Verdict, stdout)
		}
	})

	t.Run("a lock strategy cannot queue orders: FAILED with the reason", func(t *testing.T) {
		code, stdout, stderr := runTool(t, "--targets", shop, "--strategy", "db-conditional", "--order-mode", "async",
			"--stock", "5", "--buyers", "5", "--admin-token", testToken)
		if code != load.ExitFail || !strings.Contains(stdout, load.VerdictFailed) || !strings.Contains(stdout, "order_mode") {
			t.Errorf("exit %d, want 1 and FAILED naming order_mode\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
}
