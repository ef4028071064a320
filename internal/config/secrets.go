package config

import (
	"fmt"
	"strings"
)

// MinSecretBytes is the shortest admin token or ticket secret a shop that
// listens beyond loopback accepts: 128 bits, were every byte random.
const MinSecretBytes = 16

// MakeSecret is a command that makes a good secret, for the messages.
const MakeSecret = "openssl rand -hex 32"

// placeholders are the values manifests, examples and tutorials ship in
// place of a secret, compared without case or punctuation: anyone who read
// them knows the value.
var placeholders = map[string]bool{
	"changeme": true, "changemetoo": true, "changeit": true, "replaceme": true, "secret": true, "mysecret": true,
	"yoursecret": true, "supersecret": true, "password": true, "passw0rd": true, "admin": true, "token": true,
	"test": true, "testing": true, "example": true, "default": true, "placeholder": true, "todo": true,
	"xxx": true, "xxxx": true, "1234": true, "12345678": true, "seckill": true,
}

// placeholderPrefixes catch the variants: change-me-please,
// example-admin-token, your-token-here.
var placeholderPrefixes = []string{"changeme", "replaceme", "example", "yoursecret", "yourtoken", "placeholder", "insert"}

// CheckSecret returns why value, the variable name's, is no secret (an
// error naming name and saying how to make one), or nil. An empty value
// is nil: unset is the caller's to judge. The value itself is never in
// the message: a short real secret must not reach a log.
func CheckSecret(name, value string) error {
	if value == "" {
		return nil
	}
	if isPlaceholder(value) {
		return fmt.Errorf("%s is set to a known placeholder, not a secret: anyone who read the manifests or the docs "+
			"knows it. Make one: %s=$(%s) (or: head -c 32 /dev/urandom | base64)", name, name, MakeSecret)
	}
	if len(value) < MinSecretBytes {
		return fmt.Errorf("%s is %d bytes, shorter than %d: too easy to guess. Make one: %s=$(%s) (or: head -c 32 /dev/urandom | base64)",
			name, len(value), MinSecretBytes, name, MakeSecret)
	}
	return nil
}

// isPlaceholder compares value, lower-cased and without punctuation
// (change_me, <secret>, CHANGE-ME), with the placeholders.
func isPlaceholder(value string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(value) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	v := b.String()
	if v == "" || placeholders[v] {
		return true // punctuation alone is no secret either
	}
	for _, p := range placeholderPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}
