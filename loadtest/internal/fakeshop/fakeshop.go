// Package fakeshop is a stand-in for the shop's HTTP surface, for the load
// tool's tests: enough to test the tool's counting and exit logic with
// answers a real shop only gives when it is broken (a safe strategy
// overselling). Tests only; the real shop is tested against the real
// services.
package fakeshop

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Shop answers GET /api/strategies, POST /api/sales, orders on sale 1 and
// GET /api/sales/1.
type Shop struct {
	Strategies []shopapi.StrategyInfo
	// Answer decides the reply to the n-th order (0-based): status and code.
	Answer func(n int64) (int, string)
	Final  shopapi.SaleView // GET /api/sales/1 (id is forced to 1)
	Token  string           // when set, POST /api/sales needs "Bearer <token>"

	orders atomic.Int64 // orders received
	mu     sync.Mutex
	sales  int // sales created
	users  map[string]bool
}

// ServeHTTP answers one request.
func (f *Shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/strategies":
		reply(http.StatusOK, f.Strategies)
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales" && f.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.Token:
		reply(http.StatusUnauthorized, shopapi.APIErrorBody{Error: "unauthorized", Message: "fake"})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales":
		var req shopapi.SaleRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		f.sales++
		f.mu.Unlock()
		reply(http.StatusCreated, shopapi.SaleView{ID: 1, InitialStock: req.Stock, Stock: req.Stock})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
		var req struct {
			UserID string `json:"user_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		if f.users == nil {
			f.users = map[string]bool{}
		}
		f.users[req.UserID] = true
		f.mu.Unlock()
		status, code := f.Answer(f.orders.Add(1) - 1)
		if status == http.StatusCreated {
			reply(status, map[string]any{"order_id": 1})
			return
		}
		reply(status, shopapi.APIErrorBody{Error: code, Message: "fake"})
	case r.Method == http.MethodGet && r.URL.Path == "/api/sales/1":
		v := f.Final
		v.ID = 1
		reply(http.StatusOK, v)
	default:
		reply(http.StatusNotFound, shopapi.APIErrorBody{Error: "not_found"})
	}
}

// SoldAfter answers 201 to the first stock orders, then sold_out.
func SoldAfter(stock int64) func(int64) (int, string) {
	return func(n int64) (int, string) {
		if n < stock {
			return http.StatusCreated, ""
		}
		return http.StatusConflict, "sold_out"
	}
}

// Counts returns the sales created and the distinct buyers seen.
func (f *Shop) Counts() (sales, users int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sales, len(f.users)
}

// Users returns the buyers seen.
func (f *Shop) Users() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.users))
	for u := range f.users {
		out = append(out, u)
	}
	return out
}

// Orders is how many orders it received.
func (f *Shop) Orders() int64 { return f.orders.Load() }

// Start serves f until the test ends and returns its URL.
func Start(t testing.TB, f *Shop) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}
