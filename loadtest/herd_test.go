package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// herdShop is a fake shop with an opening: it opens the sale opens_in_ms
// after creating it, answers an order that arrives before that with
// not_open (layer opening), and otherwise sells stock units (layer
// database) then answers sold_out from its sold-out cache. With
// ticket_required it hands out tickets and refuses orders without the
// right one (layer ticket).
type herdShop struct {
	stock int64

	mu      sync.Mutex
	created map[string]any // the POST /api/sales body
	opening time.Time
	sold    int64
	early   int   // orders that arrived before the opening
	badTix  int   // orders without their buyer's ticket
	tickets int   // tickets handed out
	orders  int64 // order requests answered, as the shop's live figures count them
}

func (f *herdShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	reply := func(status int, layer string, v any) {
		w.Header().Set("Content-Type", "application/json")
		if layer != "" {
			w.Header().Set(shopapi.LayerHeader, layer)
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/strategies":
		reply(http.StatusOK, "", []shopapi.StrategyInfo{{Name: "fake-safe", Safe: true, Available: true}})
	case r.Method == http.MethodGet && r.URL.Path == "/api/limits":
		reply(http.StatusOK, "", map[string]string{"status": "ok"})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales":
		_ = json.NewDecoder(r.Body).Decode(&f.created)
		ms, _ := f.created["opens_in_ms"].(float64)
		f.opening = now.Add(time.Duration(ms) * time.Millisecond)
		reply(http.StatusCreated, "", shopapi.SaleView{ID: 1, InitialStock: f.stock, Stock: f.stock, OpensAt: f.opening.UTC().Format(time.RFC3339Nano)})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/ticket":
		var req struct {
			UserID string `json:"user_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.tickets++
		reply(http.StatusOK, "", map[string]any{"ticket": "t." + req.UserID, "sale_id": 1, "user_id": req.UserID})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
		var req struct {
			UserID string `json:"user_id"`
			Ticket string `json:"ticket"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.orders++
		switch {
		case now.Before(f.opening):
			f.early++
			reply(http.StatusConflict, "opening", shopapi.APIErrorBody{Error: "not_open"})
		case f.created["ticket_required"] == true && req.Ticket != "t."+req.UserID:
			f.badTix++
			reply(http.StatusForbidden, "ticket", shopapi.APIErrorBody{Error: "bad_ticket"})
		case f.sold < f.stock:
			f.sold++
			reply(http.StatusCreated, "database", map[string]any{"order_id": f.sold})
		default:
			reply(http.StatusConflict, "sold_out_cache", shopapi.APIErrorBody{Error: "sold_out"})
		}
	case r.Method == http.MethodGet && r.URL.Path == "/api/sales/1/herd":
		ms := 123.0
		reply(http.StatusOK, "", shopapi.HerdView{SaleID: 1, Sold: f.sold, SoldOut: f.sold == f.stock, SellOutMS: &ms, SellOutFromFirstMS: &ms,
			Answers: f.orders, FirstSecond: shopapi.HerdSecond{Answers: f.orders, Orders: f.sold, SoldOut: f.orders - f.sold, P50MS: 1, P99MS: 2},
			Layers: []shopapi.HerdRow{{Layer: "sold_out_cache", Count: f.orders - f.sold, Percent: 83.3}, {Layer: "database", Count: f.sold, Percent: 16.7}}})
	case r.Method == http.MethodGet && r.URL.Path == "/api/sales/1":
		reply(http.StatusOK, "", shopapi.SaleView{ID: 1, InitialStock: f.stock, Sold: f.sold})
	default:
		reply(http.StatusNotFound, "", shopapi.APIErrorBody{Error: "not_found"})
	}
}

// TestHerdWaitsForTheOpening: with --opens-in, no buyer fires before the
// opening the shop announced, the sale carries the guard options asked
// for, every buyer gets its ticket first, and the answers are counted per
// layer in the table and the JSON, with the herd's first second and
// sell-out time.
func TestHerdWaitsForTheOpening(t *testing.T) {
	f := &herdShop{stock: 10}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "out.json")
	code, stdout, stderr := runTool(t, "--targets", srv.URL, "--strategy", "fake-safe", "--stock", "10", "--buyers", "60",
		"--opens-in", "300ms", "--max-in-flight", "20", "--sold-out-cache=false", "--rate-limit-user", "5",
		"--rate-limit-ip", "7", "--ticket-required", "--json", path)
	if code != load.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	f.mu.Lock()
	early, badTix, tickets, created := f.early, f.badTix, f.tickets, f.created
	f.mu.Unlock()
	if early != 0 {
		t.Errorf("%d orders arrived before the opening: the buyers must wait for it", early)
	}
	if badTix != 0 || tickets != 60 {
		t.Errorf("%d tickets handed out, %d orders without their ticket; want 60 and 0", tickets, badTix)
	}
	for k, want := range map[string]any{"opens_in_ms": 300.0, "sold_out_cache": false, "rate_limit_user": 5.0,
		"rate_limit_ip": 7.0, "ticket_required": true} {
		if created[k] != want {
			t.Errorf("sale member %s = %v, want %v (sale %v)", k, created[k], want, created)
		}
	}
	r := decodeReport(t, mustRead(t, path)).Results[0]
	if r.Model != "herd" || r.Herd == nil {
		t.Fatalf("model %q, herd %+v: want the herd's figures", r.Model, r.Herd)
	}
	if r.Layers["database"] != 10 || r.Layers["sold_out_cache"] != 50 || len(r.Layers) != 2 {
		t.Errorf("answers per layer %v, want database 10 and sold_out_cache 50", r.Layers)
	}
	if r.Herd.SellOutS == nil {
		t.Errorf("the stock ran out, yet no time to sell out: %+v", r.Herd)
	}
	if n := r.Herd.FirstSecond.Requests; n > 60 || n != sum(r.Herd.FirstSecond.Layers) {
		t.Errorf("first second: %d answers, per layer %v", n, r.Herd.FirstSecond.Layers)
	}
	if sh := r.Herd.Shop; sh == nil || sh.Answers != 60 || sh.FirstSecond.Orders != 10 {
		t.Errorf("the shop's herd (GET /api/sales/1/herd) %+v, want its 60 answers and 10 orders", sh)
	}
	for _, want := range []string{"answers per layer", "database 10", "sold_out_cache 50", "first second", "time to sell out",
		"the shop's herd (dashboard)", "sold out 123 ms after the opening", "first second: 60 answers (10 orders, 50 sold out, 0 others)",
		"who answered: sold_out_cache 50 (83.3%), database 10 (16.7%)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// TestFirstSecondSplit: only the answers received within a second of the
// opening count in the first second, with their latency from the send, and
// the time to sell out runs from the opening to the last order.
func TestFirstSecondSplit(t *testing.T) {
	opening := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	rec := load.NewHerdRecorder(opening)
	at := func(d time.Duration) time.Time { return opening.Add(d) }
	sold := shopapi.Answer{Kind: shopapi.KindOrder, Layer: "database"}
	out := shopapi.Answer{Kind: shopapi.KindSoldOut, Layer: "sold_out_cache"}
	rec.Record(0, shopapi.Answer{Kind: "not_open", Layer: "opening"}, time.Millisecond, at(-2*time.Millisecond), at(-time.Millisecond))
	rec.Record(1, sold, 10*time.Millisecond, at(0), at(10*time.Millisecond))
	rec.Record(2, sold, 250*time.Millisecond, at(200*time.Millisecond), at(250*time.Millisecond))
	rec.Record(3, out, 999*time.Millisecond, at(997*time.Millisecond), at(999*time.Millisecond))
	rec.Record(4, out, time.Second, at(999*time.Millisecond), at(time.Second))
	rec.Record(5, shopapi.Answer{Kind: shopapi.KindSoldOut}, 5*time.Second, at(4*time.Second), at(5*time.Second))

	r := load.NewResult(shopapi.StrategyInfo{Name: "x"}, "herd")
	r.Herd = &load.Herd{OpensAt: opening}
	f := rec.Figures()
	r.Measure(f.All.Hist, f.All.Kinds, 5*time.Second)
	r.MeasureLayers(f)
	fs := r.Herd.FirstSecond
	if fs.Requests != 3 || fs.Orders != 2 || fs.SoldOut != 1 {
		t.Errorf("first second: %+v; want the 3 answers in [opening, opening+1s): 2 orders, 1 sold_out", fs)
	}
	if fs.Layers["database"] != 2 || fs.Layers["sold_out_cache"] != 1 || len(fs.Layers) != 2 {
		t.Errorf("first second per layer %v", fs.Layers)
	}
	// Latency from the send: 10, 50 and 2 ms (the whole run's 999 ms from
	// the opening must not show here).
	if fs.LatencyMS.Max < 49 || fs.LatencyMS.Max > 51 {
		t.Errorf("first second max latency %v ms, want 50 (from the send)", fs.LatencyMS.Max)
	}
	want := map[string]int64{"opening": 1, "database": 2, "sold_out_cache": 2, shopapi.LayerUnknown: 1}
	for k, n := range want {
		if r.Layers[k] != n {
			t.Errorf("layers %v, want %v", r.Layers, want)
			break
		}
	}
	if r.Herd.SellOutS == nil || *r.Herd.SellOutS != 0.25 {
		t.Errorf("sell-out %v, want 0.25 s (the last order's answer)", r.Herd.SellOutS)
	}
}

// TestLayerAndCodeParsing: the layer header and the error code are read
// without trusting them: known names as they are, odd ones bounded.
func TestLayerAndCodeParsing(t *testing.T) {
	for in, want := range map[string]string{"": shopapi.LayerUnknown, "store": "store", "rate_limit": "rate_limit",
		"new_layer": "new_layer", "Bad Layer!": "other", strings.Repeat("a", 40): "other"} {
		if got := shopapi.LayerOf([]byte(in)); got != want {
			t.Errorf("layerOf(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{201, `{"order_id":1}`, shopapi.KindOrder},
		{409, `{"error":"sold_out","message":"x"}`, shopapi.KindSoldOut},
		{409, `{"message":"x","error":"not_open"}`, "not_open"},
		{429, `{"error":"rate_limited"}`, "rate_limited"},
		{403, `{"error":"bad_ticket"}`, "bad_ticket"},
		{503, `<html>busy</html>`, "http_503"},
		{500, `{"error":"internal"}`, "http_500"},
		{409, `{"error":"NOT A CODE"}`, "http_409"},
	} {
		if got := shopapi.Classify(tc.status, []byte(tc.body)); got != tc.want {
			t.Errorf("classify(%d, %s) = %q, want %q", tc.status, tc.body, got, tc.want)
		}
	}
}
