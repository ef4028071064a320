package lockstrategy

import "testing"

func TestNamesKey(t *testing.T) {
	for _, tc := range []struct {
		first string
		want  bool
	}{
		{"ks:sale:12", true}, {"2level:ks:sale:12", true}, {"redisson:{ks:sale:12}", true},
		{"ks:sale:123", false}, {"redisson:{ks:sale:123}", false}, {"ks:sale:12:fence", false}, {"", false},
	} {
		if got := namesKey(tc.first, "ks:sale:12"); got != tc.want {
			t.Errorf("namesKey(%q) = %v, want %v", tc.first, got, tc.want)
		}
	}
}
