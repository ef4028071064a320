package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"

	"github.com/seckill-lab/seckill/internal/clip"
)

// MaxBodyBytes bounds every request body (64 KiB): a sale or an order is a
// few dozen bytes, so anything near this is abuse, answered with 413.
const MaxBodyBytes = 64 << 10

// decodeObject reads exactly one JSON object from r into members (member
// name -> pointer to decode its value into) and nothing after it.
//
// It walks the object token by token instead of calling
// json.Decoder.DisallowUnknownFields, because the standard decoder matches
// names case-insensitively ("STOCK" would set stock) and lets a duplicate
// name silently overwrite the first; both hide client bugs, and here every
// error names the member at fault. Absent and null members leave their
// pointer untouched (nil), so callers can tell "absent" from "zero".
func decodeObject(r io.Reader, members map[string]any) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return badRequest("empty_body", "the request body is empty; send a JSON object")
	}
	if err != nil {
		return syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return badRequest("invalid_json", "the request body must be a JSON object")
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
			e := badRequest("unknown_field", "unknown field %q", clip.Input(name))
			e.body.Field = clip.Input(name)
			return e
		}
		if seen[name] {
			return badField(name, "field %q appears twice", name)
		}
		seen[name] = true
		if err := dec.Decode(into); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return badField(name, "%s must be %s, not %s", name, kindName(te.Type), clip.Input(te.Value))
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
		return badRequest("invalid_json", "unexpected data after the JSON object")
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
		return badRequest("invalid_json", "the JSON body ends too early")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return badRequest("invalid_json", "malformed JSON at byte %d: %s", se.Offset, clip.Input(se.Error()))
	}
	return badRequest("invalid_json", "unreadable request body")
}

// readFailure classifies a read of the body that failed for the client's
// sending rather than for what it sent: a body over MaxBodyBytes keeps its
// *http.MaxBytesError (413), one still arriving when the server's read
// bound (ReadTimeout) ends is a 408 body_timeout. Nil for anything else.
func readFailure(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return err
	}
	var netErr net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		return &apiError{status: http.StatusRequestTimeout, body: errorBody{Error: "body_timeout",
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

// describeJSON names the JSON type of a raw value, for error messages.
func describeJSON(raw json.RawMessage) string {
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
