package buyer_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// seed is the property tests' seed: SECKILL_BUYER_SEED replays one; it is
// printed and named in every failure.
func seed(t *testing.T) uint64 {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("SECKILL_BUYER_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SECKILL_BUYER_SEED=%q: %v", v, err)
		}
		s = n
	}
	t.Logf("seed %d (replay: SECKILL_BUYER_SEED=%d go test -run %s ./internal/buyer/)", s, s, t.Name())
	return s
}

// probeConn is one connection of its own to the test database (temporary
// tables live in one connection), closed at cleanup.
func probeConn(t *testing.T) *sql.Conn {
	t.Helper()
	sqlDB, err := testenv.DB(t, "buyer").DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// column is one column's definition as the database has it.
type column struct{ typ, charset, collation string }

func readColumn(t *testing.T, conn *sql.Conn, table, name string) column {
	t.Helper()
	var c column
	err := conn.QueryRowContext(context.Background(), `SELECT COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?`,
		table, name).Scan(&c.typ, &c.charset, &c.collation)
	if err != nil {
		t.Fatalf("reading %s.%s's definition: %v", table, name, err)
	}
	return c
}

// randomID is a short id over an alphabet that holds what databases fold:
// spaces, case, control characters, accents, U+FFFD, invalid bytes.
func randomID(rng *rand.Rand) string {
	alphabet := []string{"a", "b", "A", "B", " ", "\t", "\x00", "é", "e\u0301", "\u00a0", "\ufffd", "ß", "ss", "🛒", "\xff", "1"}
	n := rng.IntN(5)
	s := ""
	for range n {
		s += alphabet[rng.IntN(len(alphabet))]
	}
	return s
}

// The one property: two ids the database's own column compares equal are
// either the same bytes or one of them is refused. Else Redis's keys and
// Go's maps (different) and the database's keys (equal) would disagree on
// who is one buyer. The same for Idempotency-Keys. Pairs are lookalikes of
// random ids (trailing spaces, case, controls...) and random ids over a
// small alphabet.
func TestDatabaseComparesAcceptedIDsAsGo(t *testing.T) {
	s := seed(t)
	rng := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	ctx := context.Background()
	conn := probeConn(t)
	for _, tc := range []struct {
		column string
		check  func(string) error
	}{
		{"user_id", buyer.CheckID},
		{"idempotency_key", buyer.CheckKey},
	} {
		col := readColumn(t, conn, "orders", tc.column)
		equal := fmt.Sprintf("SELECT CONVERT(? USING %[1]s) COLLATE %[2]s = CONVERT(? USING %[1]s) COLLATE %[2]s", col.charset, col.collation)
		folded, pairs := 0, 0
		for i := range 1500 {
			a := randomID(rng)
			b := randomID(rng)
			if i%2 == 0 {
				b = buyer.Lookalikes(rng, a, 1)[0]
			}
			if a == b {
				continue
			}
			pairs++
			var same sql.NullBool
			if err := conn.QueryRowContext(ctx, equal, a, b).Scan(&same); err != nil {
				t.Fatalf("seed %d: comparing %q and %q: %v", s, a, b, err)
			}
			if !same.Bool {
				continue
			}
			folded++
			if tc.check(a) == nil && tc.check(b) == nil {
				t.Errorf("seed %d: %s %q and %q are one value to the database (%s) and two to Go and Redis, and both are accepted",
					s, tc.column, a, b, col.collation)
			}
		}
		t.Logf("%s (%s %s): %d pairs, %d that the database folds", tc.column, col.typ, col.collation, pairs, folded)
		if folded == 0 {
			t.Fatalf("seed %d: no pair of %s was folded by the database: the test proves nothing", s, tc.column)
		}
	}
}

// Every id the checks accept is stored and read back as the same bytes in
// a column defined as orders.user_id: the database truncates, replaces or
// refuses none of them.
func TestAcceptedIDsRoundTripTheColumn(t *testing.T) {
	s := seed(t)
	rng := rand.New(rand.NewPCG(s, 7))
	ctx := context.Background()
	conn := probeConn(t)
	col := readColumn(t, conn, "orders", "user_id")
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`CREATE TEMPORARY TABLE buyer_probe
		(id INT AUTO_INCREMENT PRIMARY KEY, u %s CHARACTER SET %s COLLATE %s NOT NULL)`, col.typ, col.charset, col.collation)); err != nil {
		t.Fatal(err)
	}
	ids := []string{"🛒🛒", "e\u0301", "买家", "bob smith", string(make([]rune, 0))}
	for range 400 {
		ids = append(ids, randomID(rng)+randomID(rng))
	}
	tried := 0
	for _, id := range ids {
		if buyer.CheckID(id) != nil {
			continue
		}
		tried++
		r, err := conn.ExecContext(ctx, "INSERT INTO buyer_probe (u) VALUES (?)", id)
		if err != nil {
			t.Errorf("seed %d: an accepted id %q is refused by the column: %v", s, id, err)
			continue
		}
		n, _ := r.LastInsertId()
		var back []byte
		if err := conn.QueryRowContext(ctx, "SELECT u FROM buyer_probe WHERE id = ?", n).Scan(&back); err != nil {
			t.Fatal(err)
		}
		if string(back) != id {
			t.Errorf("seed %d: accepted id %q reads back as %q", s, id, back)
		}
	}
	if tried < 50 {
		t.Fatalf("seed %d: only %d accepted ids were tried", s, tried)
	}
}
