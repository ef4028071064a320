package clip

import (
	"strings"
	"testing"
)

// Short input comes back as it is; long input is cut by characters, not
// bytes, so a multi-byte character is never split.
func TestInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{strings.Repeat("x", MaxRunes), strings.Repeat("x", MaxRunes)},
		{strings.Repeat("x", MaxRunes+1), strings.Repeat("x", MaxRunes) + "..."},
		{strings.Repeat("秒", MaxRunes+5), strings.Repeat("秒", MaxRunes) + "..."},
	} {
		if got := Input(c.in); got != c.want {
			t.Errorf("Input(%d runes) = %q, want %q", len([]rune(c.in)), got, c.want)
		}
	}
}
