package guard

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A ticket is good for its sale and user until it expires, and for
// nothing else; a forged or altered one is refused.
func TestTickets(t *testing.T) {
	now := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	tk := NewTickets([]byte("secret"))
	tk.now = func() time.Time { return now }
	ticket, exp := tk.Issue(7, "alice")
	if !exp.Equal(now.Add(TicketTTL)) {
		t.Fatalf("expires %v, want %v", exp, now.Add(TicketTTL))
	}
	if err := tk.Verify(ticket, 7, "alice"); err != nil {
		t.Fatalf("a fresh ticket is refused: %v", err)
	}
	other := NewTickets([]byte("another secret"))
	other.now = tk.now
	exp8 := strings.Split(ticket, ".")[0]
	for name, c := range map[string]struct {
		ticket string
		sale   uint64
		user   string
		want   error
	}{
		"none":             {"", 7, "alice", ErrTicketRequired},
		"another user":     {ticket, 7, "bob", ErrBadTicket},
		"a user prefix":    {ticket, 7, "alic", ErrBadTicket},
		"another sale":     {ticket, 8, "alice", ErrBadTicket},
		"another secret":   {func() string { s, _ := other.Issue(7, "alice"); return s }(), 7, "alice", ErrBadTicket},
		"expiry moved":     {"AAAAAAAAAAA." + strings.Split(ticket, ".")[1], 7, "alice", ErrBadTicket},
		"no signature":     {exp8, 7, "alice", ErrBadTicket},
		"not base64":       {"%%%." + strings.Split(ticket, ".")[1], 7, "alice", ErrBadTicket},
		"signature cut":    {ticket[:len(ticket)-2], 7, "alice", ErrBadTicket},
		"signature padded": {ticket + "A", 7, "alice", ErrBadTicket},
	} {
		if err := tk.Verify(c.ticket, c.sale, c.user); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	now = exp
	if err := tk.Verify(ticket, 7, "alice"); err != nil {
		t.Fatalf("a ticket at its expiry instant is refused: %v", err)
	}
	now = exp.Add(time.Millisecond)
	if err := tk.Verify(ticket, 7, "alice"); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("an expired ticket: %v, want ErrBadTicket", err)
	}
	var none *Tickets
	if err := none.Verify(ticket, 7, "alice"); !errors.Is(err, ErrBadTicket) {
		t.Fatalf("a replica without tickets: %v", err)
	}
}
