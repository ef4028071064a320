// Package clip shortens client-supplied text quoted back in an error
// message, so that a 60 KiB field name or value does not come back in the
// response. Every package that echoes input uses it, so the cut is the same
// everywhere.
package clip

import "unicode/utf8"

// MaxRunes is how much of a value is quoted back.
const MaxRunes = 64

// Input is s, or its first MaxRunes characters followed by "...".
func Input(s string) string {
	if utf8.RuneCountInString(s) <= MaxRunes {
		return s
	}
	return string([]rune(s)[:MaxRunes]) + "..."
}
