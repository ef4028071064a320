package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/runwire"
	"github.com/seckill-lab/seckill/loadtest/internal/fakeshop"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

func TestAgentFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main(context.Background(), nil, &out, &errb); code != load.ExitUsage || !strings.Contains(errb.String(), "-shop") {
		t.Fatalf("no -shop: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	// shop demo's probe: `loadtest agent -h` must document -shop.
	if code := Main(context.Background(), []string{"-h"}, &out, &errb); code != load.ExitUsage || !strings.Contains(errb.String(), "-shop") {
		t.Fatalf("-h: exit %d, %q", code, errb.String())
	}
	if _, err := parseAgentFlags([]string{"-shop", "http://a:1,http://b:2/", "-id", "x"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := parseAgentFlags([]string{"-shop", "ftp://a"}, io.Discard); err == nil {
		t.Fatal("ftp URL accepted")
	}
}

// Buyers meant for a target that just failed go round robin to the others;
// with every target failed, the plain round robin comes back.
func TestTargetsSkipFailed(t *testing.T) {
	ts := newTargets([]string{"http://a", "http://b", "http://c"}, 7)
	if ts.urls[1] != "http://b/api/sales/7/orders" {
		t.Fatal(ts.urls[1])
	}
	ts.failed(1)
	for i, want := range []int{0, 2, 2, 0, 2, 2} {
		if got := ts.pick(i); got != want {
			t.Fatalf("pick(%d) = %d with b failed, want %d", i, got, want)
		}
	}
	ts.failed(0)
	ts.failed(2)
	if got := ts.pick(4); got != 1 {
		t.Fatalf("all failed: pick(4) = %d, want 1", got)
	}
}

// deadURL is an address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// fakeControl records the reports an agent sends.
type fakeControl struct {
	mu      sync.Mutex
	reports []runwire.Report
	calls   int
}

func (f *fakeControl) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if strings.HasSuffix(r.URL.Path, "/report") {
		var rep runwire.Report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		f.reports = append(f.reports, rep)
	}
	w.WriteHeader(http.StatusNoContent)
}

// A dead first shop costs one failed dial; the agent then stays on the
// live one.
func TestControlFailover(t *testing.T) {
	fc := &fakeControl{}
	live := httptest.NewServer(fc)
	defer live.Close()
	ctl := &control{c: shopapi.NewClient(2, time.Second, ""), shops: []string{deadURL(t), live.URL}}
	for range 2 {
		if status, err := ctl.call(context.Background(), http.MethodPost, "/api/agents/claim", map[string]string{"agent_id": "a"}, nil); err != nil || status != http.StatusNoContent {
			t.Fatalf("call: %d %v", status, err)
		}
	}
	if ctl.cur.Load() != 1 || fc.calls != 2 {
		t.Fatalf("cur %d, live calls %d", ctl.cur.Load(), fc.calls)
	}
	ctl.shops = []string{deadURL(t)}
	ctl.cur.Store(0)
	if _, err := ctl.call(context.Background(), http.MethodPost, "/x", nil, nil); err == nil {
		t.Fatal("no live shop, no error")
	}
}

// execute sends every buyer with the share's user prefix, spreads the
// buyers of a dead target to the live one, and ends with a done report
// whose raw histogram holds every request.
func TestExecuteShare(t *testing.T) {
	shop := &fakeshop.Shop{Answer: fakeshop.SoldAfter(5)}
	shopURL := fakeshop.Start(t, shop)
	fc := &fakeControl{}
	ctlSrv := httptest.NewServer(fc)
	defer ctlSrv.Close()
	ctl := &control{c: shopapi.NewClient(2, time.Second, ""), shops: []string{ctlSrv.URL}}
	a := runwire.Assignment{RunID: 3, Step: 1, Share: 0, SaleID: 1, Targets: []string{deadURL(t), shopURL},
		Buyers: 40, UserPrefix: "p-", Concurrency: 4, Deadline: time.Now().Add(time.Minute)}

	final := execute(context.Background(), ctl, "agent-x", a, io.Discard)
	_, users := shop.Counts()
	transport := final.Errors[shopapi.KindTransport]
	if !final.Done || final.Requests != 40 || final.Orders != 5 || final.SoldOut+transport != 35 || transport > 4 {
		t.Fatalf("final: %+v", final)
	}
	if int64(users) != 40-transport {
		t.Fatalf("%d distinct buyers reached the live shop, want %d", users, 40-transport)
	}
	for _, u := range shop.Users() {
		if !strings.HasPrefix(u, "p-") {
			t.Errorf("user %q without the share's prefix", u)
		}
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	last := fc.reports[len(fc.reports)-1]
	if !last.Done || last.AgentID != "agent-x" || last.Requests != 40 {
		t.Fatalf("last report: %+v", last)
	}
	// The fake names no layer: every answer, and every transport error, is "unknown".
	if len(last.Layers) != 1 || last.Layers[shopapi.LayerUnknown] != 40 {
		t.Errorf("reported layers %v, want unknown 40", last.Layers)
	}
	h, err := hdrhistogram.Decode([]byte(last.Histogram))
	if err != nil || h.TotalCount() != 40 {
		t.Fatalf("reported histogram: %v, count %d", err, h.TotalCount())
	}
}
