package chaos

import "testing"

func TestLinearizableCell(t *testing.T) {
	for _, c := range []struct {
		in   map[string]int
		want string
	}{
		{map[string]int{"linearizable": 3}, "yes"},
		{map[string]int{"linearizable": 2, "not_linearizable": 1}, "NO 1"},
		{map[string]int{"linearizable": 2, "unknown": 1, "-": 1}, "? 2"},
		{map[string]int{"not_linearizable": 2, "unknown": 1}, "NO 2, ? 1"},
		{map[string]int{}, "-"},
	} {
		if got := linearizableCell(c.in); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
