package guard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// TicketTTL is how long a purchase ticket is valid: long enough to click
// Buy after getting it, short enough that a ticket is not a stock of its own.
const TicketTTL = 60 * time.Second

// Tickets issues and checks purchase tickets: stateless tokens signed with
// HMAC-SHA256 over the sale, the user and the expiry, so that every replica
// checks any replica's tickets without a shared store, and a script that
// only knows the order URL cannot buy before the page hands out tickets.
type Tickets struct {
	secret []byte
	now    func() time.Time
}

// NewTickets returns a ticket issuer signing with secret.
func NewTickets(secret []byte) *Tickets { return &Tickets{secret: secret, now: time.Now} }

// Issue returns a ticket for userID on sale saleID and when it expires.
func (t *Tickets) Issue(saleID uint64, userID string) (string, time.Time) {
	exp := t.now().Add(TicketTTL).Truncate(time.Millisecond)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(exp.UnixMilli()))
	return base64.RawURLEncoding.EncodeToString(b[:]) + "." + t.sign(saleID, userID, exp.UnixMilli()), exp
}

// Verify checks a ticket against the sale and user of the order carrying
// it: ErrTicketRequired when there is none, ErrBadTicket when it is forged,
// expired, or another user's or sale's.
func (t *Tickets) Verify(ticket string, saleID uint64, userID string) error {
	if ticket == "" {
		return ErrTicketRequired
	}
	if t == nil {
		return fmt.Errorf("%w: this replica issues no tickets", ErrBadTicket)
	}
	expPart, mac, ok := strings.Cut(ticket, ".")
	raw, err := base64.RawURLEncoding.DecodeString(expPart)
	if !ok || err != nil || len(raw) != 8 {
		return fmt.Errorf("%w: malformed", ErrBadTicket)
	}
	expMS := int64(binary.BigEndian.Uint64(raw))
	if !hmac.Equal([]byte(mac), []byte(t.sign(saleID, userID, expMS))) {
		return fmt.Errorf("%w: not signed for this sale and user", ErrBadTicket)
	}
	if t.now().UnixMilli() > expMS {
		return fmt.Errorf("%w: expired", ErrBadTicket)
	}
	return nil
}

func (t *Tickets) sign(saleID uint64, userID string, expMS int64) string {
	h := hmac.New(sha256.New, t.secret)
	// Length-prefixed fields: no two (sale, user, expiry) sign the same bytes.
	fmt.Fprintf(h, "v1|%d|%d:%s|%d", saleID, len(userID), userID, expMS)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// ticketSecretSetting is the settings row that keeps the shared secret.
const ticketSecretSetting = "ticket_secret"

// LoadSecret returns the ticket secret: configured (every replica must be
// given the same), else the one in the database's settings, made by the
// first replica that needed it, so replicas agree without configuration.
func LoadSecret(ctx context.Context, db *gorm.DB, configured string) ([]byte, error) {
	if configured != "" {
		return []byte(configured), nil
	}
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	// INSERT IGNORE: the first replica's secret wins; the others read it.
	if err := db.WithContext(ctx).Exec("INSERT IGNORE INTO settings (name, value) VALUES (?, ?)",
		ticketSecretSetting, hex.EncodeToString(fresh[:])).Error; err != nil {
		return nil, fmt.Errorf("guard: store the ticket secret: %w", err)
	}
	var value string
	if err := db.WithContext(ctx).Raw("SELECT value FROM settings WHERE name = ?", ticketSecretSetting).Scan(&value).Error; err != nil {
		return nil, fmt.Errorf("guard: read the ticket secret: %w", err)
	}
	if value == "" {
		return nil, fmt.Errorf("guard: the ticket secret is empty")
	}
	return []byte(value), nil
}
