package buyer

import (
	"math/rand/v2"
	"strings"
)

// lookalikeEdits are the ways a client can send an id that is another id to
// someone: to MariaDB (trailing spaces), to a screen (control characters,
// white space), to Go's JSON decoder (U+FFFD), to a case-folding collation.
var lookalikeEdits = []func(string) string{
	func(s string) string { return s + " " },
	func(s string) string { return s + "  " },
	func(s string) string { return " " + s },
	func(s string) string { return s + "\t" },
	func(s string) string { return s + "\x00" },
	func(s string) string { return s + "\u00a0" }, // no-break space
	func(s string) string { return s + "\u3000" }, // ideographic space
	func(s string) string { return s + "\ufffd" },
	func(s string) string { return s + "\x7f" },
	func(s string) string { return strings.ToUpper(s) },
	func(s string) string { return s + "\u0301" }, // a combining accent
	func(s string) string { return s + string([]byte{0xff}) },
}

// Lookalikes returns n ids that differ from id by what a database, a screen
// or a decoder may not tell apart (trailing or leading spaces, control
// characters, U+FFFD, case, invalid bytes), drawn with rng. Some are valid
// ids of their own (case, a combining accent, an inner character): a test
// that sends them all checks that every road counts each group as the
// database does. Used by the identity tests and the chaos run's buyers.
func Lookalikes(rng *rand.Rand, id string, n int) []string {
	out := make([]string, n)
	for i := range out {
		s := id
		for range 1 + rng.IntN(2) {
			s = lookalikeEdits[rng.IntN(len(lookalikeEdits))](s)
		}
		out[i] = s
	}
	return out
}
