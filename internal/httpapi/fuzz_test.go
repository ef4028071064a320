package httpapi

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Seeds shared by both fuzz targets: valid bodies, wrong types, unknown
// fields, huge and negative numbers, unicode, nesting and plain garbage.
var fuzzGarbage = []string{
	"", " ", "null", "true", "0", `""`, "[]", "{}", "{", "}", "{{}}", `{"":""}`, `{"a"}`, `{"a":}`, `{,}`,
	`{"user_id":"u"}{`, "\x00", "\xff\xfe", `{"\u0000":1}`, `[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]`,
	`{"a":{"b":{"c":{"d":[1,{"e":null}]}}}}`, strings.Repeat("[", 20000), `{"x":` + strings.Repeat("9", 5000) + `}`,
}

func FuzzCreateSale(f *testing.F) {
	for _, s := range append([]string{
		`{"strategy":"mutex","stock":10}`,
		`{"name":"spring","strategy":"db-conditional","stock":1000000,"work_ms":0,"ttl_ms":600000,"fencing":true,"per_user_limit":0}`,
		`{"strategy":"none","stock":1,"work_ms":60000}`,
		`{"strategy":"mutex","stock":"10"}`,
		`{"strategy":["mutex"],"stock":10}`,
		`{"strategy":"mutex","stock":10,"fencing":"false"}`,
		`{"strategy":"mutex","stock":10,"admin":true}`,
		`{"STRATEGY":"mutex","stock":10}`,
		`{"strategy":"mutex","stock":10,"stock":11}`,
		`{"strategy":"mutex","stock":1e400}`,
		`{"strategy":"mutex","stock":18446744073709551616}`,
		`{"strategy":"mutex","stock":9223372036854775807}`,
		`{"strategy":"mutex","stock":-9223372036854775808}`,
		`{"strategy":"mutex","stock":-1,"work_ms":-1,"ttl_ms":-1,"per_user_limit":-1}`,
		`{"strategy":"mutex","stock":10,"ttl_ms":2147483648}`,
		`{"strategy":"mutex","stock":10,"name":"秒杀 🛒 \u00e9\ud83d\ude00"}`,
		`{"strategy":"mutex","stock":10,"name":"\ud800 lone surrogate"}`,
		`{"strategy":"mutex","stock":10,"name":"` + strings.Repeat("🛒", sale.MaxNameLen) + `"}`,
		`{"strategy":"mutex","stock":10,"name":"` + strings.Repeat("🛒", sale.MaxNameLen+1) + `"}`,
		`{"strategy":"mu\u0000tex","stock":10}`,
		`{"strategy":"mutex","stock":{"$gt":0}}`,
		`{"strategy":"mutex","stock":10} trailing`,
		`{"strategy":"test-needs-zk","stock":10}`,
		// Times the opens_at column (DATETIME, years 1000-9999) cannot hold.
		`{"strategy":"mutex","stock":10,"opens_at":"0000-01-01T00:00:00Z"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"0999-12-31T23:59:59.999999Z"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"1000-01-01T00:30:00+01:00"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"1000-01-01T00:00:00Z"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"9999-12-31T23:59:59Z"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"2026-02-30T00:00:00Z"}`,
		`{"strategy":"mutex","stock":10,"opens_at":"2026-01-01T00:00:00+24:00"}`,
		`{"strategy":"mutex","stock":10,"opens_at":""}`,
		`{"strategy":"mutex","stock":10,"opens_in_ms":9223372036854775807}`,
		`{"strategy":"mutex","stock":10,"opens_in_ms":-9223372036854775808}`,
		`{"strategy":"mutex","stock":10,"opens_in_ms":3600000,"pay_within_ms":86400001}`,
	}, fuzzGarbage...) {
		f.Add(s)
	}
	e := newEnv(f)
	serialize := crossProcessLock(f, e)
	f.Fuzz(func(t *testing.T, body string) {
		// Under -fuzz, workers are processes sharing the database: count
		// sales under one named lock so another worker's create does not
		// look like ours.
		defer serialize(t)()
		last := e.maxID(t, "sales")
		rec := e.post("/api/sales", body)
		written := e.rowsSince(t, "sales", last, "", nil)
		checkFuzzResponse(t, rec.Code, rec.Body.Bytes(), body)
		switch {
		case rec.Code == http.StatusCreated && written != 1:
			t.Fatalf("201 but %d sale rows written for %q", written, body)
		case rec.Code >= 400 && written != 0:
			t.Fatalf("%d but %d sale rows written for %q", rec.Code, written, body)
		}
	})
}

func FuzzPlaceOrder(f *testing.F) {
	for _, s := range append([]string{
		`{"user_id":"alice"}`,
		`{"user_id":"alice"}`, // the second one hits the per-user limit
		`{"user_id":7}`,
		`{"user_id":-7}`,
		`{"user_id":0}`,
		`{"user_id":-0}`,
		`{"user_id":18446744073709551615}`,
		`{"user_id":18446744073709551616}`,
		`{"user_id":1e2}`,
		`{"user_id":1.0}`,
		`{"user_id":true}`,
		`{"user_id":["a"]}`,
		`{"user_id":{"a":1}}`,
		`{"user_id":""}`,
		`{"user_id":" "}`,
		`{"user_id":"\u0000"}`,
		`{"user_id":"alice "}`,  // one buyer with "alice" to MariaDB: refused
		`{"user_id":"\ud800"}`,  // a lone surrogate: decoded as U+FFFD, refused
		`{"user_id":"a\tb"}`,    // a control character: refused
		`{"user_id":"e\u0301"}`, // a combining accent: a buyer of its own
		`{"user_id":"买家 🛒 \ud83d\ude00"}`,
		`{"user_id":"` + strings.Repeat("🛒", MaxUserIDLen) + `"}`,
		`{"user_id":"` + strings.Repeat("a", MaxUserIDLen+1) + `"}`,
		`{"user_id":"u","quantity":100}`,
		`{"User_ID":"u"}`,
		`{"user_id":"a","user_id":"b"}`,
		`{"user_id":"u"} {"user_id":"v"}`,
	}, fuzzGarbage...) {
		f.Add(s)
	}
	e := newEnv(f)
	// A sale per process (so per fuzz worker): its order count is ours alone.
	sale := e.createSale(f, `{"strategy":"mutex","stock":1000000,"per_user_limit":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		last := e.maxID(t, "orders")
		rec := e.post(ordersPath(sale.ID), body)
		written := e.rowsSince(t, "orders", last, "sale_id = ?", sale.ID)
		checkFuzzResponse(t, rec.Code, rec.Body.Bytes(), body)
		switch {
		case rec.Code == http.StatusCreated && written != 1:
			t.Fatalf("201 but %d order rows written for %q", written, body)
		case rec.Code >= 400 && written != 0:
			t.Fatalf("%d but %d order rows written for %q", rec.Code, written, body)
		}
	})
}

// maxID and rowsSince count the rows a request wrote by primary key rather
// than with COUNT(*) over the table, which slows down as a long fuzzing
// session fills it.
func (e *env) maxID(t *testing.T, table string) uint64 {
	var id sql.NullInt64
	if err := e.db.Raw("SELECT MAX(id) FROM " + table).Scan(&id).Error; err != nil {
		t.Fatal(err)
	}
	return uint64(id.Int64)
}

func (e *env) rowsSince(t *testing.T, table string, id uint64, where string, arg any) int64 {
	var n int64
	q := e.db.Table(table).Where("id > ?", id)
	if where != "" {
		q = q.Where(where, arg)
	}
	if err := q.Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// checkFuzzResponse: never a 5xx, every 4xx is the JSON error shape, and
// one that blames a member names it.
func checkFuzzResponse(t *testing.T, status int, body []byte, input string) {
	t.Helper()
	input = clip.Input(input) // a failure quotes the start of a 64 KiB input
	if status >= 500 {
		t.Fatalf("%d for %q: %s", status, input, body)
	}
	if status >= 400 {
		var b wire.Body
		if err := json.Unmarshal(body, &b); err != nil || b.Error == "" || b.Message == "" {
			t.Fatalf("%d for %q without a JSON error body: %s", status, input, body)
		}
		// (An unknown member named "" is named so in the message only.)
		if (b.Error == "invalid_field" || b.Error == "unknown_field" && b.Message != `unknown field ""`) && b.Field == "" {
			t.Fatalf("%d %s for %q names no field: %s", status, b.Error, input, body)
		}
	}
}

// crossProcessLock returns a function that takes a MariaDB named lock (held
// by one dedicated connection of this process) and returns its release.
func crossProcessLock(tb testing.TB, e *env) func(testing.TB) func() {
	sqlDB, err := e.db.DB()
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return func(t testing.TB) func() {
		var got sql.NullInt64
		if err := conn.QueryRowContext(context.Background(), "SELECT GET_LOCK('httpapi_fuzz_sales', 30)").Scan(&got); err != nil || got.Int64 != 1 {
			t.Fatalf("GET_LOCK: %v %v", got, err)
		}
		return func() { conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK('httpapi_fuzz_sales')") }
	}
}
