package sale

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrStrategyUnavailable means the sale's strategy could not be built or
// could not take the sale's stock on this replica: its backend does not
// answer. Nothing was written.
var ErrStrategyUnavailable = errors.New("sale: strategy cannot be built")

// ErrInvalid is what every *FieldError matches with errors.Is.
var ErrInvalid = errors.New("sale: invalid spec")

// FieldError is a Spec member that is missing or out of range. Message is
// meant for the client as it stands; nothing was written.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return "sale: " + e.Field + ": " + e.Message }

// Unwrap makes every field error an ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldError(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// clip shortens a client-supplied value quoted back in a message.
func clip(s string) string {
	const max = 64
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "..."
}
