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

func TestIsRowRefused(t *testing.T) {
	wrap := func(n uint16) error { return fmt.Errorf("ctx: %w", &mysql.MySQLError{Number: n}) }
	for _, c := range []struct {
		err     error
		refused bool
	}{
		{wrap(1062), true}, {wrap(1406), true}, {wrap(1366), true}, {wrap(4025), true},
		{wrap(1205), false}, {wrap(1213), false}, {wrap(2013), false}, {errors.New("plain"), false}, {nil, false},
	} {
		if IsRowRefused(c.err) != c.refused {
			t.Errorf("IsRowRefused(%v) = %v, want %v", c.err, !c.refused, c.refused)
		}
	}
}
