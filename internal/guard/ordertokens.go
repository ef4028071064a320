package guard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

// orderTokenVersion starts every order token, so that a new format can be
// told from this one.
const orderTokenVersion = "v1."

// OrderTokens signs and checks order tokens: the proof that the caller
// holds an order, handed out with every answer that shows the order and
// asked for to read it by its numeric id (sequential, so guessable) or to
// pay it. A token is HMAC-SHA256 over the order, its sale and its buyer,
// with a key derived from the shared ticket secret: stateless, so every
// replica checks any replica's tokens, and it never expires (an order's
// holder may come back to it at any time).
type OrderTokens struct {
	key []byte
}

// NewOrderTokens returns order tokens keyed from secret (LoadSecret's).
// The key is derived, not the secret itself: a purchase ticket's
// signature is never an order token.
func NewOrderTokens(secret []byte) *OrderTokens {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("seckill order token key v1"))
	return &OrderTokens{key: h.Sum(nil)}
}

// Sign returns the token of order orderID of sale saleID bought by userID.
func (t *OrderTokens) Sign(orderID, saleID uint64, userID string) string {
	return orderTokenVersion + t.mac(orderID, saleID, userID)
}

// Verify checks token against the order it is presented for:
// ErrOrderTokenRequired when there is none, ErrBadOrderToken when it is
// forged, altered or another order's.
func (t *OrderTokens) Verify(token string, orderID, saleID uint64, userID string) error {
	if token == "" {
		return ErrOrderTokenRequired
	}
	if t == nil {
		return fmt.Errorf("%w: this replica signs no order tokens", ErrBadOrderToken)
	}
	mac, ok := strings.CutPrefix(token, orderTokenVersion)
	if !ok || !hmac.Equal([]byte(mac), []byte(t.mac(orderID, saleID, userID))) {
		return ErrBadOrderToken
	}
	return nil
}

func (t *OrderTokens) mac(orderID, saleID uint64, userID string) string {
	h := hmac.New(sha256.New, t.key)
	// Length-prefixed buyer: no two (order, sale, buyer) sign the same bytes.
	fmt.Fprintf(h, "order|%d|%d|%d:%s", orderID, saleID, len(userID), userID)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}
