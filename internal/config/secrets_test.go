package config

import (
	"strings"
	"testing"
)

// Placeholders and short values are refused with a message that names the
// variable and says how to make a secret, and never quotes the value;
// unset and a long random value pass.
func TestCheckSecret(t *testing.T) {
	for _, v := range []string{"change-me", "change-me-too", "CHANGE_ME", "changeme", "Secret", "password", "admin",
		"token", "test", "example", "example-admin-token-for-docs", "<secret>", "change-me-please-0123456789",
		"your-secret-here-0123456789", "----------------"} {
		err := CheckSecret(EnvTicketSecret, v)
		if err == nil {
			t.Errorf("%q accepted", v)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, EnvTicketSecret) || !strings.Contains(msg, "placeholder") || !strings.Contains(msg, "openssl rand") {
			t.Errorf("%q: message %q does not name %s, say placeholder and how to make one", v, msg, EnvTicketSecret)
		}
	}
	for _, v := range []string{"s3cret", "tok", "0123456789abcde"} { // 15 bytes: one short
		err := CheckSecret(EnvAdminToken, v)
		if err == nil || !strings.Contains(err.Error(), EnvAdminToken) || !strings.Contains(err.Error(), "shorter than 16") {
			t.Errorf("%q: %v, want an error naming %s and the length", v, err, EnvAdminToken)
			continue
		}
		if strings.Contains(err.Error(), v) {
			t.Errorf("%q: the message quotes the value: %v", v, err)
		}
	}
	for _, v := range []string{"", "0123456789abcdef", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"q1QbSDZ5yPYRUB4SUpGzu8lYV9nq6L5pAqpxAqVRNdA="} {
		if err := CheckSecret(EnvAdminToken, v); err != nil {
			t.Errorf("%q refused: %v", v, err)
		}
	}
}
