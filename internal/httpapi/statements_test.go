package httpapi

import (
	"sync/atomic"
	"testing"

	"gorm.io/gorm"
)

// statementCounter counts the statements a *gorm.DB sends to the database:
// every query, row read, raw statement and write, counted by a callback
// after gorm's own runs it (a transaction's BEGIN and COMMIT are not
// statements gorm runs through callbacks, and are not counted).
type statementCounter struct{ n atomic.Int64 }

// countStatements starts counting db's statements. Callbacks are compiled
// into db: register before anything uses db concurrently.
func countStatements(t testing.TB, db *gorm.DB) *statementCounter {
	t.Helper()
	c := &statementCounter{}
	inc := func(*gorm.DB) { c.n.Add(1) }
	cb := db.Callback()
	const name = "test:count_statements"
	for _, err := range []error{
		cb.Create().After("gorm:create").Register(name, inc),
		cb.Query().After("gorm:query").Register(name, inc),
		cb.Update().After("gorm:update").Register(name, inc),
		cb.Delete().After("gorm:delete").Register(name, inc),
		cb.Row().After("gorm:row").Register(name, inc),
		cb.Raw().After("gorm:raw").Register(name, inc),
	} {
		if err != nil {
			t.Fatalf("register the statement counter: %v", err)
		}
	}
	return c
}

func (c *statementCounter) count() int64 { return c.n.Load() }
