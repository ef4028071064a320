package guard

import (
	"errors"
	"strings"
	"testing"
)

// An order token proves its holder's order and no other: another order,
// sale or buyer, another secret, an altered or cut token, and a purchase
// ticket's signature over the same secret are all refused.
func TestOrderTokens(t *testing.T) {
	tk := NewOrderTokens([]byte("secret"))
	token := tk.Sign(41, 7, "alice")
	if err := tk.Verify(token, 41, 7, "alice"); err != nil {
		t.Fatalf("the order's own token is refused: %v", err)
	}
	if again := NewOrderTokens([]byte("secret")).Sign(41, 7, "alice"); again != token {
		t.Fatalf("another replica with the same secret signs %q, not %q", again, token)
	}
	ticket, _ := NewTickets([]byte("secret")).Issue(7, "alice")
	for name, c := range map[string]struct {
		token string
		order uint64
		sale  uint64
		user  string
		want  error
	}{
		"none":            {"", 41, 7, "alice", ErrOrderTokenRequired},
		"another order":   {token, 42, 7, "alice", ErrBadOrderToken},
		"another sale":    {token, 41, 8, "alice", ErrBadOrderToken},
		"another buyer":   {token, 41, 7, "bob", ErrBadOrderToken},
		"a buyer prefix":  {token, 41, 7, "alic", ErrBadOrderToken},
		"another secret":  {NewOrderTokens([]byte("another secret")).Sign(41, 7, "alice"), 41, 7, "alice", ErrBadOrderToken},
		"cut":             {token[:len(token)-1], 41, 7, "alice", ErrBadOrderToken},
		"padded":          {token + "A", 41, 7, "alice", ErrBadOrderToken},
		"no version":      {strings.TrimPrefix(token, "v1."), 41, 7, "alice", ErrBadOrderToken},
		"a ticket":        {ticket, 41, 7, "alice", ErrBadOrderToken},
		"a ticket's mac":  {"v1." + strings.Split(ticket, ".")[1], 41, 7, "alice", ErrBadOrderToken},
		"id for sale":     {tk.Sign(7, 41, "alice"), 41, 7, "alice", ErrBadOrderToken},
		"digits shuffled": {tk.Sign(4, 17, "alice"), 41, 7, "alice", ErrBadOrderToken},
	} {
		if err := tk.Verify(c.token, c.order, c.sale, c.user); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	var none *OrderTokens
	if err := none.Verify(token, 41, 7, "alice"); !errors.Is(err, ErrBadOrderToken) {
		t.Fatalf("a replica without order tokens: %v", err)
	}
}
