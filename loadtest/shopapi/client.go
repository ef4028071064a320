package shopapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Outcome kinds of one order request, as the engine counts them. Besides
// these two, a refusal is counted under the shop's own error code
// ("conflict", "lock_timeout", ...) and a hard error under one of the
// hard-error kinds below.
const (
	KindOrder   = "order"    // 201: bought one unit
	KindSoldOut = "sold_out" // 409 sold_out: the expected end of a sale
	// 202 on an async sale: the unit is taken and the order queued; the
	// answer's order ticket is kept and followed to its end after the load.
	KindAccepted = "accepted"
)

// Hard-error kinds: the request failed for reasons that are not the sale's
// answer. Only these count against --max-error-rate.
const (
	KindTransport = "transport" // no HTTP answer: refused, reset, EOF
	KindTimeout   = "timeout"   // no answer within --timeout
	KindHTTP      = "http_"     // prefix: any status that is not 201/202 nor a shop 403/409/429/503 refusal, e.g. http_500
)

// IsHardError reports whether an outcome kind is a hard error.
func IsHardError(kind string) bool {
	return kind == KindTransport || kind == KindTimeout || strings.HasPrefix(kind, KindHTTP)
}

// StrategyInfo is one entry of GET /api/strategies.
type StrategyInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Needs       []string `json:"needs"`
	Safe        bool     `json:"safe"`
	Renews      bool     `json:"renews"` // the lease renews itself (a watchdog); absent from older shops
	// Kind: "lock" (a critical section under a lock: it can combine),
	// "lock-free" or "reserve"; absent from older shops.
	Kind      string `json:"kind"`
	Available bool   `json:"available"`
	// Tokens: the lease carries a fencing token; Expiry: what frees a dead
	// holder's lock (ttl, session, connection, none...). Absent from older shops.
	Tokens bool   `json:"tokens"`
	Expiry string `json:"expiry"`
	// SplitsStock: a sale may split its stock (stock_shards > 1); absent
	// from older shops.
	SplitsStock bool              `json:"splits_stock"`
	Backends    map[string]string `json:"backends"`
}

// SaleRequest is the body of POST /api/sales.
type SaleRequest struct {
	Name         string `json:"name"`
	Strategy     string `json:"strategy"`
	Stock        int64  `json:"stock"`
	WorkMS       int    `json:"work_ms"`
	TTLMS        int    `json:"ttl_ms"`
	Fencing      bool   `json:"fencing"`
	PerUserLimit int    `json:"per_user_limit"`
	// Watchdog false turns a renewing strategy's watchdog off; nil sends
	// nothing, so the shop's default holds and older shops see no new member.
	Watchdog *bool `json:"watchdog,omitempty"`
	// The guards, sent only when not the shop's default, so that a shop
	// without them (it refuses unknown members) still takes a plain sale.
	OpensInMS      int   `json:"opens_in_ms,omitempty"`
	SoldOutCache   *bool `json:"sold_out_cache,omitempty"`
	RateLimitUser  int   `json:"rate_limit_user,omitempty"`
	RateLimitIP    int   `json:"rate_limit_ip,omitempty"`
	TicketRequired bool  `json:"ticket_required,omitempty"`
	// The order mode and the reservation window, sent only when not the
	// default (sync, no reservation), for the same reason.
	OrderMode   string `json:"order_mode,omitempty"`
	PayWithinMS int    `json:"pay_within_ms,omitempty"`
	// Combining (a strategy that takes a lock), sent only when on.
	Combine          bool `json:"combine,omitempty"`
	CombineMaxBatch  int  `json:"combine_max_batch,omitempty"`
	CombineMaxWaitUS int  `json:"combine_max_wait_us,omitempty"`
	// NoQueue (redlock only), sent only when on: every contender polls the
	// masters itself (the lesson redlock-herd's "before").
	NoQueue bool `json:"no_queue,omitempty"`
	// StockShards (a strategy that splits the stock), sent only above 1.
	StockShards int `json:"stock_shards,omitempty"`
}

// SaleView is the part of the API's sale view the verdict reads; the whole
// view goes to the JSON report untouched.
type SaleView struct {
	ID           uint64 `json:"id"`
	Name         string `json:"name"`
	Strategy     string `json:"strategy"`
	WorkMS       int    `json:"work_ms"`
	TTLMS        int    `json:"ttl_ms"`
	Fencing      bool   `json:"fencing"`
	Watchdog     bool   `json:"watchdog"`
	NoQueue      bool   `json:"no_queue"`
	PerUserLimit int    `json:"per_user_limit"`
	SoldOutCache bool   `json:"sold_out_cache"`
	RateLimitIP  int    `json:"rate_limit_ip"`
	InitialStock int64  `json:"initial_stock"`
	Stock        int64  `json:"stock"`
	Sold         int64  `json:"sold"`
	Oversold     int64  `json:"oversold"`
	LostUpdates  int64  `json:"lost_updates"`
	Duplicates   int64  `json:"duplicates"`
	Violations   int64  `json:"violations"`
	FencedWrites int64  `json:"fenced_writes"`
	StoreStock   *int64 `json:"store_stock"` // the stock a Reserver keeps outside the database; -1 lost
	OpensAt      string `json:"opens_at"`    // RFC 3339; absent from shops without an opening time
	OrderMode    string `json:"order_mode"`  // "sync" or "async"; absent from older shops
	// An async sale's queue, and the reconciliation of a sale with a Redis
	// stock; nil when the shop does not give them.
	Queue        *QueueView        `json:"queue"`
	Reconcile    *ReconcileView    `json:"reconcile"`
	Reservations *reservationsView `json:"reservations"`
	// Verdict is the shop's judgement of the figures above (nil from shops
	// that do not give one).
	Verdict *VerdictView `json:"verdict"`
	// Combine: the sale sold the orders waiting for its lock as batches.
	Combine bool `json:"combine"`
	// StockShards: the stock split into that many shards (0 from older
	// shops: one); Shards: a split sale's shards, from the database.
	StockShards int         `json:"stock_shards"`
	Shards      []ShardView `json:"shards"`
	// LockCycle is the sale's recorded critical sections (nil from older
	// shops): one lock acquisition and one transaction each.
	LockCycle *LockCycleView `json:"lock_cycle"`
}

// ShardView is one shard of a split sale: its stock, the units it sold,
// and those sold to buyers who found their home shard empty and moved on.
type ShardView struct {
	Shard   int   `json:"shard"`
	Stock   int64 `json:"stock"`
	Sold    int64 `json:"sold"`
	MovedIn int64 `json:"moved_in"`
}

// LockCycleView is the part of the sale view's lock_cycle the tool prints.
type LockCycleView struct {
	Sections     int64   `json:"sections"`
	Orders       int64   `json:"orders"`
	UnitsPerHold float64 `json:"units_per_hold"`
	HoldMS       float64 `json:"hold_ms"`
	HandoverMS   float64 `json:"handover_ms"`
}

// VerdictView is the sale view's "verdict": holds, overlapped_safe (the
// sections overlapped, fencing or the database refused every stale write)
// or broken, with its reason.
type VerdictView struct {
	Kind     string `json:"kind"`
	ReasonEn string `json:"reason_en"`
	ReasonZh string `json:"reason_zh"`
}

// Word is the kind for people: "holds", "overlapped, data safe" or "BROKEN".
func (v *VerdictView) Word() string {
	if v == nil {
		return "-"
	}
	switch v.Kind {
	case "overlapped_safe":
		return "overlapped, data safe"
	case "broken":
		return "BROKEN"
	}
	return v.Kind
}

// QueueView is the sale view's "queue": the async sale's tickets as the
// shop counts them (accepted in Redis, settled in the database).
type QueueView struct {
	Accepted         int64      `json:"accepted"`
	InFlight         int64      `json:"in_flight"` // accepted, not yet settled
	Confirmed        int64      `json:"confirmed"`
	Failed           int64      `json:"failed"`
	ConfirmP50MS     float64    `json:"confirm_p50_ms"` // 202 -> order committed
	ConfirmP99MS     float64    `json:"confirm_p99_ms"`
	FirstAcceptedAt  *time.Time `json:"first_accepted_at"`
	FirstConfirmedAt *time.Time `json:"first_confirmed_at"`
	LastConfirmedAt  *time.Time `json:"last_confirmed_at"`
}

// ReconcileView compares a sale's Redis stock (plus what is in flight)
// with the database; drift 0 is consistent.
type ReconcileView struct {
	DBStock           int64 `json:"db_stock"`
	StoreStock        int64 `json:"store_stock"` // -1: lost
	InFlight          int64 `json:"in_flight"`
	ExpiredUnreturned int64 `json:"expired_unreturned"`
	LostReturns       int64 `json:"lost_returns"`
	Drift             int64 `json:"drift"`
}

// reservationsView counts a sale's orders by their reservation's fate.
type reservationsView struct {
	Reserved int64 `json:"reserved"`
	Paid     int64 `json:"paid"`
	Expired  int64 `json:"expired"`
	Returned int64 `json:"returned"` // expired units given back to the stock
}

// apiErrorBody is the shop's one error shape.
type APIErrorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// MaxErrorBody bounds how much of an error answer is read: the shop's are
// tiny, a proxy's HTML page need not be read whole.
const MaxErrorBody = 4 << 10

// Client calls the shop API. One client serves every worker: http.Client and
// its Transport are safe for concurrent use, and sharing the Transport is
// what lets connections be reused across requests.
type Client struct {
	Http  *http.Client `json:"-"`
	Token string       `json:"-"` // admin bearer token for the writes and the order reads; "" sends none
	// SaleCreated, when set, is told the id of each sale CreateSale made
	// (a lesson's agent reports them while the lesson runs).
	SaleCreated func(id uint64) `json:"-"`
}

// authorize adds the admin token, when there is one, to a write and to a
// read of an order: the shop lets the token's holder read any order, and
// does not hold it to the order routes' per-IP limit (a run's checker
// reads every ticket from one address).
func (c *Client) authorize(req *http.Request) {
	if c.Token != "" && (req.Method != http.MethodGet || strings.HasPrefix(req.URL.Path, "/api/orders/")) {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}

// NewClient returns a client whose Transport keeps up to maxConns idle
// connections per target, so that every worker of a closed-model run (or
// every in-flight request of an open-model run) reuses a kept-alive
// connection instead of dialing: dialing per request would measure the
// kernel's TIME_WAIT handling, not the lock. timeout bounds each request.
func NewClient(maxConns int, timeout time.Duration, token string) *Client {
	tr := &http.Transport{
		Proxy:                 nil, // talk to the targets given, never through an environment proxy
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no global cap: the per-host one below is the one that matters
		MaxIdleConnsPerHost:   maxConns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &Client{Http: &http.Client{Transport: tr, Timeout: timeout}, Token: token}
}

// Close drops the kept-alive connections.
func (c *Client) Close() { c.Http.CloseIdleConnections() }

// Strategies is GET target/api/strategies.
func (c *Client) Strategies(ctx context.Context, target string) ([]StrategyInfo, error) {
	var out []StrategyInfo
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/strategies", nil, http.StatusOK, &out)
	return out, err
}

// CreateSale is POST target/api/sales; it returns the typed view and the raw one.
func (c *Client) CreateSale(ctx context.Context, target string, req SaleRequest) (SaleView, json.RawMessage, error) {
	var v SaleView
	raw, err := c.CallJSON(ctx, http.MethodPost, target+"/api/sales", req, http.StatusCreated, &v)
	if err == nil && c.SaleCreated != nil {
		c.SaleCreated(v.ID)
	}
	return v, raw, err
}

// Sale is GET target/api/sales/{id}: the database's truth about the sale.
func (c *Client) Sale(ctx context.Context, target string, id uint64) (SaleView, json.RawMessage, error) {
	var v SaleView
	raw, err := c.CallJSON(ctx, http.MethodGet, target+"/api/sales/"+strconv.FormatUint(id, 10), nil, http.StatusOK, &v)
	return v, raw, err
}

// SettledSale reads the sale from every target in turn and returns the last
// answer. Replicas write their critical-section records (the violation
// evidence) in batches, and a GET makes the answering replica write its
// queued ones first: once every target has answered, the last read holds
// every section of every answer. A target that fails (killed by a
// scenario) is skipped; its queued sections died with it.
func (c *Client) SettledSale(ctx context.Context, targets []string, id uint64) (SaleView, json.RawMessage, error) {
	var (
		v       SaleView
		raw     json.RawMessage
		lastErr error
		ok      bool
	)
	for _, target := range targets {
		tv, traw, err := c.Sale(ctx, target, id)
		if err != nil {
			lastErr = err
			continue
		}
		v, raw, ok = tv, traw, true
	}
	if !ok {
		return SaleView{}, nil, lastErr
	}
	return v, raw, nil
}

// OrdersURL is the order endpoint of sale id on target.
func OrdersURL(target string, id uint64) string {
	return target + "/api/sales/" + strconv.FormatUint(id, 10) + "/orders"
}

// Order is one POST to OrdersURL (a target's /api/sales/{id}/orders) for
// userID; it returns the outcome kind and never retries: a retryable refusal
// is an answer worth counting, and retrying would change the offered load.
func (c *Client) Order(ctx context.Context, ordersURL, userID string) string {
	body := `{"user_id":"` + userID + `"}` // UserID is ours and plain ASCII: no escaping needed
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ordersURL, strings.NewReader(body))
	if err != nil {
		return KindTransport
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Http.Do(req)
	if err != nil {
		return transportKind(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	// Drain so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return Classify(resp.StatusCode, answer)
}

// ValidCode accepts a shop error code (snake_case, short), so that a
// strange body cannot invent unbounded map keys in the report.
func ValidCode(code string) bool {
	if code == "" || len(code) > 32 {
		return false
	}
	for _, r := range code {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

// transportKind tells a timeout from other transport failures.
func transportKind(err error) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return KindTimeout
	}
	return KindTransport
}

// MaxAnswerBytes bounds the answers CallJSON reads (1 MiB): every setup
// and read call's is far smaller.
const MaxAnswerBytes = 1 << 20

// CallJSON sends body (JSON, if not nil), expects status want and decodes the
// answer into out; it returns the raw answer too. Any other status becomes an
// error carrying the shop's code and message.
func (c *Client) CallJSON(ctx context.Context, method, url string, body any, want int, out any) (json.RawMessage, error) {
	return c.callJSON(ctx, method, url, body, want, out, MaxAnswerBytes)
}

// callJSON is CallJSON reading at most limit bytes of the answer; one
// longer is an error, not a cut JSON.
func (c *Client) callJSON(ctx context.Context, method, url string, body any, want int, out any, limit int64) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.authorize(req)
	resp, err := c.Http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s %s: the answer is longer than %d bytes", method, url, limit)
	}
	if resp.StatusCode != want {
		return nil, StatusError(method, url, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("%s %s: not the JSON expected: %w", method, url, err)
	}
	return raw, nil
}

// StatusError renders an unexpected answer: the shop's code and message when
// it sent them, with a hint for the one a user can fix here. The status
// stays readable (httpStatusError).
func StatusError(method, url string, status int, raw []byte) error {
	var e APIErrorBody
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		return &HTTPStatusError{Status: status, Err: fmt.Errorf("%s %s: HTTP %d", method, url, status)}
	}
	err := fmt.Errorf("%s %s: HTTP %d %s: %s", method, url, status, e.Error, e.Message)
	if status == http.StatusUnauthorized {
		err = fmt.Errorf("%w (pass --admin-token or set SECKILL_ADMIN_TOKEN)", err)
	}
	return &HTTPStatusError{Status: status, Code: e.Error, Err: err}
}

// httpStatusError is an answer with a status other than the one expected,
// with the shop's error code when it sent one ("" otherwise).
type HTTPStatusError struct {
	Status int    `json:"-"`
	Code   string `json:"-"`
	Err    error  `json:"-"`
}

func (e *HTTPStatusError) Error() string { return e.Err.Error() }
func (e *HTTPStatusError) Unwrap() error { return e.Err }
