package buyer

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestCheckID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"alice", true},
		{"42", true},
		{"买家-7", true},
		{"bob smith", true}, // an inner space is part of the id
		{"🛒🛒", true},        // outside the BMP: utf8mb4 stores it
		{"e\u0301", true},   // a combining accent: utf8mb4_bin tells it from é
		{strings.Repeat("x", 64), true},
		{"", false},
		{strings.Repeat("x", 65), false},
		{strings.Repeat("买", 65), false},
		{"alice ", false},
		{"alice  ", false},
		{" alice", false},
		{"alice\t", false},
		{"ali\x00ce", false},
		{"ali\nce", false},
		{"alice\x7f", false},
		{"alice\u0085", false}, // C1 control
		{"alice\u00a0", false}, // no-break space at the end
		{"alice\u3000", false},
		{"ali\ufffdce", false},
		{"ali" + string([]byte{0xff}) + "ce", false},
		{"\xed\xa0\x80", false}, // an encoded surrogate is not UTF-8
	} {
		err := CheckID(tc.id)
		if (err == nil) != tc.ok {
			t.Errorf("CheckID(%q) = %v, want ok %v", tc.id, err, tc.ok)
		}
		if err != nil {
			var be *Error
			if !errors.As(err, &be) || be.Field != FieldUserID || !errors.Is(err, ErrInvalid) || be.Message == "" {
				t.Errorf("CheckID(%q) = %#v: want an *Error naming %s with a message, matching ErrInvalid", tc.id, err, FieldUserID)
			}
		}
	}
}

func TestCheckKey(t *testing.T) {
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"", true}, {"k-1", true}, {"a.b:c_d-e", true}, {strings.Repeat("k", 64), true},
		{strings.Repeat("k", 65), false}, {"k 1", false}, {"k1 ", false}, {"k\x00", false}, {"ключ", false},
	} {
		err := CheckKey(tc.key)
		if (err == nil) != tc.ok {
			t.Errorf("CheckKey(%q) = %v, want ok %v", tc.key, err, tc.ok)
		}
		var be *Error
		if err != nil && (!errors.As(err, &be) || be.Field != FieldKey) {
			t.Errorf("CheckKey(%q) = %v: want an *Error naming %s", tc.key, err, FieldKey)
		}
	}
}

// Every lookalike of an id is either refused or an id of its own that the
// checks accept: none is the id itself.
func TestLookalikesDiffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range Lookalikes(rng, "alice", 200) {
		if l == "alice" {
			t.Fatalf("a lookalike is the id itself")
		}
	}
}

// BenchmarkCheckID: the rule's cost on every order (a typical id and the
// longest one).
func BenchmarkCheckID(b *testing.B) {
	for _, id := range []string{"u123456", strings.Repeat("买", MaxIDLen)} {
		b.Run(strconv.Itoa(len(id))+"B", func(b *testing.B) {
			for b.Loop() {
				if CheckID(id) != nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
