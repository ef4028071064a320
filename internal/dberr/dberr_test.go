package dberr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestNames(t *testing.T) {
	wrap := func(n uint16) error { return fmt.Errorf("ctx: %w", &mysql.MySQLError{Number: n}) }
	for _, c := range []struct {
		err              error
		dup, wait, cycle bool
	}{
		{wrap(1062), true, false, false},
		{wrap(1205), false, true, false},
		{wrap(1213), false, false, true},
		{wrap(1146), false, false, false},
		{errors.New("plain"), false, false, false},
		{nil, false, false, false},
	} {
		if IsDuplicate(c.err) != c.dup || IsLockWaitTimeout(c.err) != c.wait || IsDeadlock(c.err) != c.cycle {
			t.Errorf("%v: dup %v wait %v deadlock %v", c.err, IsDuplicate(c.err), IsLockWaitTimeout(c.err), IsDeadlock(c.err))
		}
	}
}
