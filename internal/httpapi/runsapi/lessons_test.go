package runsapi

import (
	"fmt"
	"testing"
	"time"
)

// lessonNext's bounds on at, against a fixed clock.
func TestLessonNextAtBounds(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at string
		ok bool
	}{
		{"2026-11-26T10:00:08Z", true},
		{"2026-11-26T11:00:08+01:00", true}, // the same instant elsewhere
		{"2026-11-26T10:00:08.123456789Z", true},
		{"2026-11-26T09:59:58Z", true}, // just passed: harmless, the dashboard hides it
		{"2026-11-26T10:03:00Z", true},
		{"2026-11-26T10:03:01Z", false},
		{"2026-11-26T09:56:59Z", false},
		{"2026-11-26 10:00:08", false},
		{"2026-11-26T10:00:08", false},
	} {
		n, err := lessonNext([]byte(fmt.Sprintf(`{"en":"a","zh":"甲","at":%q}`, c.at)), now)
		if c.ok != (err == nil) {
			t.Errorf("at %s: err %v, want ok %v", c.at, err, c.ok)
		}
		if err == nil && n.At.Location() != time.UTC {
			t.Errorf("at %s: kept as %v, want UTC", c.at, n.At)
		}
	}
	if n, err := lessonNext(nil, now); n != nil || err != nil {
		t.Errorf("absent: %+v %v, want nil", n, err)
	}
}
