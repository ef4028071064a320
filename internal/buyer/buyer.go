// Package buyer defines what one buyer is: the user id and the
// Idempotency-Key every road of an order (locked, combined, lock-free,
// reserved, queued), the Redis scripts, the database's keys and the audit
// compare. Two requests are the same buyer exactly when their ids are the
// same bytes.
//
// That is only true if the database compares ids the way Go and Redis do.
// orders.user_id is utf8mb4_bin, which compares code points but with PAD
// SPACE: "bob" and "bob " are one value to MariaDB and two to Redis and Go
// (a per-user limit of 1 sold to both, and a queued order's insert failed on
// the idempotency key for ever). So an id the database would fold into
// another is refused, never stored:
//
//   - surrounding white space (the database ignores trailing spaces; a
//     leading one is refused too, as a client's mistake, for one simple rule);
//   - control characters (NUL, tab, newline, DEL, C1): invisible on every
//     screen that lists buyers;
//   - U+FFFD and invalid UTF-8: Go's JSON decoder turns invalid bytes and
//     lone surrogates into U+FFFD, so "\ud800" and "\udc00" would become one
//     buyer;
//   - more than MaxIDLen characters (VARCHAR(64)).
//
// Idempotency keys are ASCII letters, digits and . _ : - (ascii_bin, PAD
// SPACE too: the space is not among them).
//
// CheckID and CheckKey are the one definition: the HTTP API calls them to
// name the field in a 400, order.Service.Buy calls them for every road, and
// the queue consumer fails an entry that breaks them (one queued before the
// rule) on its own. TestDatabaseComparesAcceptedIDsAsGo checks the rule
// against the real column.
package buyer

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen bounds a user id in characters (orders.user_id is VARCHAR(64)).
const MaxIDLen = 64

// MaxKeyLen bounds an Idempotency-Key in characters.
const MaxKeyLen = 64

// Fields named by an *Error.
const (
	FieldUserID = "user_id"
	FieldKey    = "Idempotency-Key"
)

// ErrInvalid is what every *Error matches with errors.Is.
var ErrInvalid = errors.New("buyer: invalid user id or idempotency key")

// Error is a user id or key refused: Field names it, Message says why for
// the client.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string        { return "buyer: " + e.Field + ": " + e.Message }
func (e *Error) Is(target error) bool { return target == ErrInvalid }

func refuse(field, format string, args ...any) error {
	return &Error{Field: field, Message: fmt.Sprintf(format, args...)}
}

// CheckID says why id cannot name a buyer; nil if it can.
func CheckID(id string) error {
	switch {
	case id == "":
		return refuse(FieldUserID, "user_id must not be empty")
	case !utf8.ValidString(id):
		return refuse(FieldUserID, "user_id must be valid UTF-8")
	case utf8.RuneCountInString(id) > MaxIDLen:
		return refuse(FieldUserID, "user_id must be at most %d characters", MaxIDLen)
	}
	first, _ := utf8.DecodeRuneInString(id)
	last, _ := utf8.DecodeLastRuneInString(id)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return refuse(FieldUserID, "user_id must not start or end with white space: the database ignores trailing spaces, so \"bob \" would be the buyer \"bob\"")
	}
	for _, r := range id {
		switch {
		case unicode.IsControl(r):
			return refuse(FieldUserID, "user_id must not hold control characters (U+%04X)", r)
		case r == utf8.RuneError:
			return refuse(FieldUserID, "user_id must not hold U+FFFD: it stands for bytes that were not valid UTF-8 (or a lone surrogate), so two different ids would become one")
		}
	}
	return nil
}

// CheckKey says why k cannot be an Idempotency-Key; nil if it can. The
// empty key is no key.
func CheckKey(k string) error {
	if len(k) > MaxKeyLen {
		return refuse(FieldKey, "the Idempotency-Key header must be at most %d characters", MaxKeyLen)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r)) {
			return refuse(FieldKey, "the Idempotency-Key header may hold only letters, digits and . _ : -")
		}
	}
	return nil
}

// Check is CheckID then CheckKey: a purchase's buyer.
func Check(id, key string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	return CheckKey(key)
}

// Storable is id as a record of what was sent can hold it (a failed
// ticket's row): valid UTF-8, at most MaxIDLen characters. For ids CheckID
// accepts it is id itself.
func Storable(id string) string {
	id = strings.ToValidUTF8(id, "\ufffd")
	if r := []rune(id); len(r) > MaxIDLen {
		id = string(r[:MaxIDLen])
	}
	return id
}
