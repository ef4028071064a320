package testenv

import (
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"
)

// RefuseOrderRowsOf makes db refuse every order row of user, until the
// test ends: a trigger raising ER_DATA_TOO_LONG, the error a row too long
// for its column gets. It stands for any row the database refuses for what
// it holds, whatever the load (dberr.IsRowRefused), which the buyer rule
// otherwise keeps from happening.
func RefuseOrderRowsOf(t testing.TB, db *gorm.DB, user string) {
	t.Helper()
	name := fmt.Sprintf("refuse_%d", time.Now().UnixNano())
	if err := db.Exec(fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON orders FOR EACH ROW
		BEGIN IF NEW.user_id = '%s' THEN SIGNAL SQLSTATE '22001' SET MYSQL_ERRNO = 1406, MESSAGE_TEXT = 'refused by the test'; END IF; END`,
		name, user)).Error; err != nil {
		t.Fatalf("creating the trigger that refuses %s's rows: %v", user, err)
	}
	t.Cleanup(func() { db.Exec("DROP TRIGGER IF EXISTS " + name) })
}
