package runs

import (
	"errors"
	"fmt"

	"github.com/seckill-lab/seckill/internal/runwire"
)

// Bounds of a report's error map, stored as JSON in run_shares.errors
// (TEXT, 65,535 bytes): kinds are short codes (a shop error code, a
// transport failure, http_NNN). At most 32 kinds of at most 64 bytes, each
// byte at worst six in JSON (\u003c), with a count of 20 digits, make at
// most about 13 KB: always within the column.
const (
	maxErrorKinds   = 32
	maxErrorKindLen = 64
)

// ReportError is a report member that cannot be right; it matches
// ErrInvalid. Nothing was written.
type ReportError struct {
	Field  string // the member at fault
	Reason string
}

func (e *ReportError) Error() string { return "runs: invalid report: " + e.Field + ": " + e.Reason }

// Unwrap makes every report error an ErrInvalid.
func (e *ReportError) Unwrap() error { return ErrInvalid }

// checkReport refuses figures that cannot be counts and error kinds or a
// histogram the share's row cannot hold or read, naming the first member
// at fault.
func checkReport(r runwire.Report) error {
	for _, c := range []struct {
		name string
		n    int64
	}{{"requests", r.Requests}, {"orders", r.Orders}, {"sold_out", r.SoldOut}, {"elapsed_ms", r.ElapsedMS}} {
		if c.n < 0 {
			return &ReportError{c.name, "a count must not be negative"}
		}
	}
	if len(r.Errors) > maxErrorKinds {
		return &ReportError{"errors", fmt.Sprintf("at most %d error kinds", maxErrorKinds)}
	}
	for kind, n := range r.Errors {
		switch {
		case kind == "" || len(kind) > maxErrorKindLen:
			return &ReportError{"errors", fmt.Sprintf("an error kind must be 1-%d bytes", maxErrorKindLen)}
		case n < 0:
			return &ReportError{"errors", "a count must not be negative"}
		}
	}
	if r.Histogram != "" {
		if _, err := decodeHist(r.Histogram); err != nil {
			return &ReportError{"histogram", err.Error()}
		}
	}
	return nil
}

// maxHistLen bounds an encoded histogram (base64 text): a compressed one of
// a share is a few KB; the request body limit is 64 KiB anyway.
const maxHistLen = 60 << 10

// errHistTooLarge: an encoded histogram longer than maxHistLen.
var errHistTooLarge = errors.New("histogram too large")
