package hashring

import "time"

// SetClock makes now the view's time, for the tests' refreshes.
func (m *Membership) SetClock(now func() time.Time) { m.now = now }
