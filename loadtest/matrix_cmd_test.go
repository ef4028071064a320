package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// `loadtest matrix` observes cells on two real shops with faults on: one
// that must hold (db-pessimistic's row lock lasts as long as the paused
// holder's connection), one that must break (redis without its watchdog:
// the lease expires under the paused holder and its stale write lands),
// two that stop selling while the fault lasts (the sale's row held 3 s by
// slow_db; a holder that waits 1.5 s for its own lock, nested_lock, armed
// before its order), an n/a (a lock-free strategy has no holder to pause) and a skip
// (etcd pointed at nothing here). Each observation must agree with its
// prediction: a finding fails the test. Beside the lessons (parallel): it
// mostly waits on held locks.
func TestMatrixObservesCells(t *testing.T) {
	t.Parallel()
	env := faultyShops(t, "loadtest_matrix", false, false)
	noEtcd := withEnv(config.EnvEtcdEndpoints + "=127.0.0.1:1")
	a, b := startShop(t, env, noEtcd), startShop(t, env, noEtcd)
	for _, tc := range []struct{ only, want string }{
		{"db-pessimistic/pause_holder", "observed holds"},
		{"redis+no-watchdog/pause_holder", "observed broken"},
		{"redis/slow_db", "observed unavailable"},
		{"redis/nested_lock", "observed unavailable"},
		{"db-optimistic/pause_holder", "n/a: takes no lock"},
		{"etcd/pause_holder", "skip: etcd is not available"},
	} {
		var out, errs bytes.Buffer
		code := dispatch(context.Background(), []string{"matrix", "--targets", a + "," + b, "--admin-token", testToken,
			"--only", tc.only}, &out, &errs)
		t.Logf("%s:\n%s", tc.only, out.String())
		if code != load.ExitOK {
			t.Errorf("%s: exit %d, stderr %s", tc.only, code, errs.String())
			continue
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: want %q in the output", tc.only, tc.want)
		}
		if strings.Contains(out.String(), "FINDING") {
			t.Errorf("%s: the observation differs from the prediction", tc.only)
		}
	}
	// Each run was saved on the first shop: the newest is the last cell's.
	c := shopapi.NewClient(2, 30*time.Second, testToken)
	defer c.Close()
	rep, observed, err := c.Matrix(context.Background(), a)
	if err != nil || !observed {
		t.Fatalf("GET /api/matrix: observed %v, err %v: want the last run kept", observed, err)
	}
	if len(rep.Cells) != 1 || rep.Cells[0].Row != "etcd" || rep.Cells[0].Kind != "skip" || !rep.Complete {
		t.Errorf("the kept run: complete %v, cells %+v; want the one etcd cell, skip", rep.Complete, rep.Cells)
	}
}
