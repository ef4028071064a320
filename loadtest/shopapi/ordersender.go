package shopapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// Answer is one order request's outcome: its kind (see client.go), the
// shop layer that gave it, from the Seckill-Layer header, and the order
// ticket of a 202 (KindAccepted; "" otherwise).
type Answer struct {
	Kind   string
	Layer  string
	Ticket string
}

// LayerUnknown counts answers without a Seckill-Layer header (an older shop,
// a proxy, a transport error).
const LayerUnknown = "unknown"

// OrderSender sends the load phase's order requests. It is built on
// fasthttp's HostClient rather than net/http: the request is written and the
// answer read on the calling goroutine over a kept-alive connection, with
// pooled request and response objects, where net/http hands each request to
// two goroutines per connection and allocates its headers, body reader and
// response anew. On two cores the generator shares with the shop, that cost
// was half of what wrk could reach. One sender serves every worker.
type OrderSender struct {
	hosts   []*fasthttp.HostClient // one per target
	uris    []string               // full order URL per target
	timeout time.Duration
}

// NewOrderSender sends to urls (a target's /api/sales/{id}/orders each),
// with up to conns connections per target (enough for every request that can
// be in flight, so none waits for a connection) and timeout per request.
func NewOrderSender(urls []string, conns int, timeout time.Duration) (*OrderSender, error) {
	s := &OrderSender{uris: urls, timeout: timeout}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, err
		}
		s.hosts = append(s.hosts, newHostClient(u, conns, timeout))
	}
	return s, nil
}

// newHostClient is a keep-alive client of u's host. It never retries: every
// buyer makes one attempt, and a retried POST would change the offered load.
func newHostClient(u *url.URL, conns int, timeout time.Duration) *fasthttp.HostClient {
	addr := u.Host
	if u.Port() == "" {
		addr += map[bool]string{true: ":443", false: ":80"}[u.Scheme == "https"]
	}
	return &fasthttp.HostClient{
		Addr:                          addr,
		IsTLS:                         u.Scheme == "https",
		MaxConns:                      max(conns, 1),
		MaxConnWaitTimeout:            timeout, // wait for a free connection rather than fail
		MaxIdleConnDuration:           30 * time.Second,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		RetryIf:                       func(*fasthttp.Request) bool { return false },
	}
}

// Close drops the kept-alive connections.
func (s *OrderSender) Close() {
	for _, h := range s.hosts {
		h.CloseIdleConnections()
	}
}

// Order POSTs {"user_id": prefix+n, "ticket": ticket} (no ticket member
// when empty) to target j and classifies the answer like client.order.
// prefix and ticket are ours: plain ASCII, no escaping needed.
func (s *OrderSender) Order(j int, prefix string, n int, ticket string) Answer {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(s.uris[j])
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	var num [20]byte
	req.AppendBodyString(`{"user_id":"`)
	req.AppendBodyString(prefix)
	req.AppendBody(strconv.AppendInt(num[:0], int64(n), 10))
	if ticket != "" {
		req.AppendBodyString(`","ticket":"`)
		req.AppendBodyString(ticket)
	}
	req.AppendBodyString(`"}`)
	req.SetTimeout(s.timeout)
	if err := s.hosts[j].Do(req, resp); err != nil {
		return Answer{Kind: FastTransportKind(err), Layer: LayerUnknown}
	}
	a := Answer{Kind: Classify(resp.StatusCode(), resp.Body()), Layer: LayerOf(resp.Header.Peek(LayerHeader))}
	if a.Kind == KindAccepted {
		a.Ticket = TicketOf(resp.Body())
	}
	return a
}

// Post sends body to path of target j and returns the status, the answer's
// layer and a copy of its body: for the ticket a buyer asks for before
// ordering, which is not on the hot path of every run.
func (s *OrderSender) Post(j int, uri string, body []byte) (int, string, []byte, error) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(uri)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.SetBodyRaw(body)
	req.SetTimeout(s.timeout)
	if err := s.hosts[j].Do(req, resp); err != nil {
		return 0, LayerUnknown, nil, err
	}
	return resp.StatusCode(), LayerOf(resp.Header.Peek(LayerHeader)), bytes.Clone(resp.Body()), nil
}

// Get is one GET of uri on target j; true on a 2xx answer.
func (s *OrderSender) Get(j int, uri string) bool {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(uri)
	req.SetTimeout(s.timeout)
	return s.hosts[j].Do(req, resp) == nil && resp.StatusCode()/100 == 2
}

// FastTransportKind tells a timeout from other transport failures.
func FastTransportKind(err error) string {
	var t interface{ Timeout() bool }
	if errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) || (errors.As(err, &t) && t.Timeout()) {
		return KindTimeout
	}
	return KindTransport
}

// LayerHeader names the shop layer that answered an order.
const LayerHeader = "Seckill-Layer"

// LayerOf is the layer named by a Seckill-Layer value. The known names
// come back as constants (no allocation per request); an odd value is kept
// only when it looks like a layer name, so a strange header cannot invent
// unbounded report keys.
func LayerOf(v []byte) string {
	switch string(v) {
	case "":
		return LayerUnknown
	case "opening":
		return "opening"
	case "ticket":
		return "ticket"
	case "rate_limit":
		return "rate_limit"
	case "idempotency":
		return "idempotency"
	case "sold_out_cache":
		return "sold_out_cache"
	case "lock":
		return "lock"
	case "database":
		return "database"
	case "store":
		return "store"
	case "queue":
		return "queue"
	}
	if s := string(v); ValidCode(s) {
		return s
	}
	return "other"
}

// Classify is the outcome kind of an order answer: status and body (the
// first MaxErrorBody bytes are enough).
func Classify(status int, body []byte) string {
	switch status {
	case fasthttp.StatusCreated:
		return KindOrder
	case fasthttp.StatusAccepted:
		return KindAccepted
	}
	code := errorCode(body)
	// Only the shop's own refusals count as such; anything else (a proxy's
	// 503 without a JSON code, a 5xx) is a hard error.
	if (status == fasthttp.StatusConflict || status == fasthttp.StatusServiceUnavailable ||
		status == fasthttp.StatusTooManyRequests || status == fasthttp.StatusForbidden) && ValidCode(code) {
		return code
	}
	return KindHTTP + strconv.Itoa(status)
}

// errorPrefix starts every error body of the shop: {"error":"<code>",...}.
var errorPrefix = []byte(`{"error":"`)

// errorCode is the shop's error code in body, "" when there is none. The
// shop's bodies start with the code, which is read in place; the codes
// the load meets most come back as constants.
func errorCode(body []byte) string {
	if len(body) > MaxErrorBody {
		body = body[:MaxErrorBody]
	}
	if !bytes.HasPrefix(body, errorPrefix) {
		var e APIErrorBody
		if json.Unmarshal(body, &e) != nil {
			return ""
		}
		return e.Error
	}
	rest := body[len(errorPrefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return ""
	}
	switch code := rest[:end]; string(code) {
	case KindSoldOut:
		return KindSoldOut
	case "not_open":
		return "not_open"
	case "rate_limited":
		return "rate_limited"
	case "lock_timeout":
		return "lock_timeout"
	case "conflict":
		return "conflict"
	default:
		return string(code)
	}
}

// ticketMember starts the order ticket in a 202's body.
var ticketMember = []byte(`"order_ticket":"`)

// TicketOf is the order ticket of a 202's body, read in place (the shop
// writes the member unspaced); "" when there is none or it is not a
// plausible ticket (letters, digits, '_' and '-', at most 100), so that a
// strange body cannot make the run poll a made-up path.
func TicketOf(body []byte) string {
	var t []byte
	if i := bytes.Index(body, ticketMember); i >= 0 {
		rest := body[i+len(ticketMember):]
		if end := bytes.IndexByte(rest, '"'); end >= 0 {
			t = rest[:end]
		}
	} else {
		var b struct {
			Ticket string `json:"order_ticket"`
		}
		if json.Unmarshal(body, &b) != nil {
			return ""
		}
		t = []byte(b.Ticket)
	}
	if len(t) == 0 || len(t) > 100 {
		return ""
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return ""
		}
	}
	return string(t)
}
