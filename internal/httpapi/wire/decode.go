package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/sale"
)

// ReadTimeout is the bound on reading one whole request, headers and body,
// of the http.Server that serves the API: a body still arriving then is
// refused with 408 body_timeout, whose message names it.
const ReadTimeout = 30 * time.Second

// DecodeObject reads exactly one JSON object from r into members (member
// name -> pointer to decode its value into) and nothing after it.
//
// It walks the object token by token instead of calling
// json.Decoder.DisallowUnknownFields, because the standard decoder matches
// names case-insensitively ("STOCK" would set stock) and lets a duplicate
// name silently overwrite the first; both hide client bugs, and here every
// error names the member at fault. Absent and null members leave their
// pointer untouched (nil), so callers can tell "absent" from "zero".
func DecodeObject(r io.Reader, members map[string]any) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return BadRequest("empty_body", "the request body is empty; send a JSON object")
	}
	if err != nil {
		return syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return BadRequest("invalid_json", "the request body must be a JSON object")
	}
	seen := make(map[string]bool, len(members))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		name, _ := tok.(string) // inside an object the decoder only yields string keys
		into, known := members[name]
		if !known {
			e := BadRequest("unknown_field", "unknown field %q", clip.Input(name))
			e.Body.Field = clip.Input(name)
			return e
		}
		if seen[name] {
			return BadField(name, "field %q appears twice", name)
		}
		seen[name] = true
		if err := dec.Decode(into); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return BadField(name, "%s must be %s, not %s", name, kindName(te.Type), clip.Input(te.Value))
			}
			return syntaxError(err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return syntaxError(err)
	}
	// Anything but end of input after the object is garbage: a second
	// object, a stray bracket, or text.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if failed := readFailure(err); failed != nil {
			return failed
		}
		return BadRequest("invalid_json", "unexpected data after the JSON object")
	}
	return nil
}

// syntaxError renders an error of reading the body or of its JSON: a read
// that failed for the body's size or speed is readFailure's; the rest is
// malformed JSON (400).
func syntaxError(err error) error {
	if failed := readFailure(err); failed != nil {
		return failed
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return BadRequest("invalid_json", "the JSON body ends too early")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return BadRequest("invalid_json", "malformed JSON at byte %d: %s", se.Offset, clip.Input(se.Error()))
	}
	return BadRequest("invalid_json", "unreadable request body")
}

// DecodeOptional is DecodeObject for a body that may be left out: none, or
// only white space, leaves members as they are.
func DecodeOptional(r io.Reader, members map[string]any) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		if failed := readFailure(err); failed != nil {
			return failed
		}
		return err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	return DecodeObject(bytes.NewReader(raw), members)
}

// readFailure classifies a read of the body that failed for the client's
// sending rather than for what it sent: a body over the server's bound
// (httpapi.MaxBodyBytes) keeps its *http.MaxBytesError (413), one still
// arriving when the server's read bound (ReadTimeout) ends is a 408
// body_timeout. Nil for anything else.
func readFailure(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err
	}
	var netErr net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Status: http.StatusRequestTimeout, Body: Body{Error: "body_timeout",
			Message: fmt.Sprintf("the request body did not arrive in time: a replica reads a whole request within %s; send the body with the request", ReadTimeout)}}
	}
	return nil
}

// kindName says in words what a member's Go type accepts.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer in range"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	default:
		return "a " + t.Kind().String()
	}
}

// DescribeJSON names the JSON type of a raw value, for error messages.
func DescribeJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return fmt.Sprintf("the number %s", clip.Input(string(raw)))
	}
}

// PathInt parses a non-negative decimal path parameter.
func PathInt(c *gin.Context, name string) (int64, error) {
	raw := c.Param(name)
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		e := BadRequest("invalid_id", "%s must be a non-negative decimal integer, not %q", name, clip.Input(raw))
		e.Body.Field = name
		return 0, e
	}
	return n, nil
}

// SaleMembers are the members of a sale's JSON (POST /api/sales, and a
// load-test run's sale), decoded into spec.
func SaleMembers(spec *sale.Spec) map[string]any {
	return map[string]any{
		"name": &spec.Name, "product": &spec.Product, "strategy": &spec.Strategy, "stock": &spec.Stock, "work_ms": &spec.WorkMS,
		"ttl_ms": &spec.TTLMS, "fencing": &spec.Fencing, "watchdog": &spec.Watchdog, "no_queue": &spec.NoQueue, "per_user_limit": &spec.PerUserLimit,
		"opens_at": &spec.OpensAt, "opens_in_ms": &spec.OpensInMS, "sold_out_cache": &spec.SoldOutCache,
		"rate_limit_user": &spec.RateLimitUser, "rate_limit_ip": &spec.RateLimitIP, "ticket_required": &spec.TicketRequired,
		"order_mode": &spec.OrderMode, "pay_within_ms": &spec.PayWithinMS,
		"combine": &spec.Combine, "combine_max_batch": &spec.CombineMaxBatch, "combine_max_wait_us": &spec.CombineMaxWaitUS,
		"stock_shards": &spec.StockShards,
	}
}

// Deref is an optional string member's value: "" when it was absent or null.
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
