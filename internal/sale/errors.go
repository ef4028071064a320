package sale

import (
	"errors"
	"fmt"
)

// ErrStrategyUnavailable means the sale's strategy could not be built or
// could not take the sale's stock on this replica: its backend does not
// answer. Nothing was written.
var ErrStrategyUnavailable = errors.New("sale: strategy cannot be built")

// ErrInvalid is what every *FieldError matches with errors.Is.
var ErrInvalid = errors.New("sale: invalid spec")

// FieldError is a member of a sale's Spec (or of a run's, which embeds
// one) that is missing or out of range. Message is meant for the client as
// it stands; nothing was written.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return "sale: " + e.Field + ": " + e.Message }

// Unwrap makes every field error an ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// FieldErrorf is a *FieldError naming field, its message formatted. A
// run's validation reports its own members so too.
func FieldErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrDBUnavailable means the database did not answer while the sale was
// written (a refused or broken connection): retry. The transaction was
// rolled back unless its COMMIT reached the server before the connection
// died, which GET /api/sales shows.
var ErrDBUnavailable = errors.New("sale: the database does not answer")
