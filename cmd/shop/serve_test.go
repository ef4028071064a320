package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// syncBuf is a bytes.Buffer safe for the server's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRefusesBeyondLoopbackWithoutToken(t *testing.T) {
	t.Setenv(config.EnvAdminToken, "")
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		var stderr bytes.Buffer
		// The check comes first: no database is touched (the DSN is bogus).
		code := run(context.Background(), []string{"serve", "-http-addr", addr, "-mysql-dsn", "x@tcp(127.0.0.1:1)/x"},
			&bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), config.EnvAdminToken) || !strings.Contains(stderr.String(), "loopback") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and a message naming %s", addr, code, stderr.String(), config.EnvAdminToken)
		}
	}
}

func TestDatabaseRequired(t *testing.T) {
	var stderr syncBuf
	cfg := serveConfig{HTTPAddr: "127.0.0.1:0", MySQLDSN: "root@tcp(127.0.0.1:1)/seckill?parseTime=true", LockWait: time.Second}
	if code := serve(context.Background(), cfg, serveOptions{stdout: &bytes.Buffer{}, stderr: &stderr}); code != 1 {
		t.Fatalf("exit %d without a database, want 1", code)
	}
	if !strings.Contains(stderr.String(), "127.0.0.1:1") || !strings.Contains(stderr.String(), "services-up") {
		t.Fatalf("message does not say which database or what to do: %s", stderr.String())
	}
}

// serve end to end: migrations, API, demo URL, then a SIGTERM-style
// shutdown while an order is inside its critical section: the order
// completes (201), its db-lock-table row is released, and serve exits 0.
// servedReplica is a `shop serve` started in-process by startServe.
type servedReplica struct {
	base   string
	stop   context.CancelFunc // what SIGINT/SIGTERM do through signal.NotifyContext in main
	exited chan struct{}      // closed when serve has returned code
	code   int
	stderr *syncBuf
}

// startServe runs serve with cfg (and wrap, if not nil) until it listens;
// the replica is stopped at cleanup if the test has not stopped it.
func startServe(t *testing.T, cfg serveConfig, wrap func(http.Handler) http.Handler) *servedReplica {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	r := &servedReplica{stop: stop, exited: make(chan struct{}), stderr: &syncBuf{}}
	ready := make(chan string, 1)
	var stdout syncBuf
	go func() {
		defer close(r.exited)
		r.code = serve(ctx, cfg, serveOptions{stdout: &stdout, stderr: r.stderr,
			ready: func(addr string) { ready <- addr }, wrap: wrap})
	}()
	t.Cleanup(func() { stop(); <-r.exited })
	select {
	case addr := <-ready:
		r.base = "http://" + addr
	case <-r.exited:
		t.Fatalf("serve exited %d: %s", r.code, r.stderr.String())
	}
	return r
}

func TestServeGracefulShutdown(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "shop")
	entered := make(chan struct{})
	var once sync.Once
	cfg := serveConfig{HTTPAddr: "127.0.0.1:0", MySQLDSN: dsn, LockWait: 5 * time.Second, ReplicaID: "shop-test"}
	rep := startServe(t, cfg, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/orders") {
				once.Do(func() { close(entered) })
			}
			h.ServeHTTP(w, r)
		})
	})
	base, stop, stderr := rep.base, rep.stop, rep.stderr
	if r, err := http.Get(base + "/healthz"); err != nil || r.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", r, err)
	}

	r, err := http.Post(base+"/api/sales", "application/json",
		strings.NewReader(`{"strategy":"db-lock-table","stock":5,"work_ms":600}`))
	if err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("create sale: %v %v", r, err)
	}
	var sale struct{ ID uint64 }
	json.NewDecoder(r.Body).Decode(&sale)
	r.Body.Close()

	status := make(chan int, 1)
	go func() {
		r, err := http.Post(fmt.Sprintf("%s/api/sales/%d/orders", base, sale.ID), "application/json",
			strings.NewReader(`{"user_id":"u1"}`))
		if err != nil {
			status <- -1
			return
		}
		r.Body.Close()
		status <- r.StatusCode
	}()
	<-entered
	stop() // what SIGINT/SIGTERM do through signal.NotifyContext in main

	if got := <-status; got != http.StatusCreated {
		t.Fatalf("in-flight order got %d during shutdown, want 201", got)
	}
	if <-rep.exited; rep.code != 0 {
		t.Fatalf("serve exited %d, want 0: %s", rep.code, stderr.String())
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("still accepting after shutdown")
	}
	db := testenv.DB(t, "shop")
	var held int64
	db.Raw("SELECT COUNT(*) FROM lock_table WHERE lock_key = ?", db.Migrator().CurrentDatabase()+":sale:"+strconv.FormatUint(sale.ID, 10)).Scan(&held)
	var orders int64
	db.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND replica_id = 'shop-test'", sale.ID).Scan(&orders)
	if held != 0 || orders != 1 {
		t.Fatalf("after shutdown: %d lock rows held, %d orders; want 0 and 1", held, orders)
	}
}
