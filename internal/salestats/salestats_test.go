package salestats_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/salestats"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A replica's upsert replaces its own row only; ForSale lists every
// replica's row in replica order with the database's time stamp.
func TestUpsertOwnForSale(t *testing.T) {
	db := testenv.DB(t, "salestats")
	ctx := context.Background()
	saleID := uint64(time.Now().UnixNano())
	t.Cleanup(func() { db.Exec("DELETE FROM sale_stats WHERE sale_id = ?", saleID) })

	if got, err := salestats.Own(ctx, db, saleID, "r1"); err != nil || got != nil {
		t.Fatalf("Own before any upsert: %q, %v; want nil, nil", got, err)
	}
	if rows, err := salestats.ForSale(ctx, db, saleID); err != nil || len(rows) != 0 {
		t.Fatalf("ForSale before any upsert: %v, %v; want none", rows, err)
	}
	for _, up := range []struct{ replica, payload string }{{"r2", `{"a":1}`}, {"r1", `{"b":1}`}, {"r2", `{"a":2}`}} {
		if err := salestats.Upsert(ctx, db, saleID, up.replica, []byte(up.payload)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := salestats.Own(ctx, db, saleID, "r2"); err != nil || string(got) != `{"a":2}` {
		t.Fatalf("Own r2: %q, %v; want the last upsert", got, err)
	}
	rows, err := salestats.ForSale(ctx, db, saleID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ReplicaID != "r1" || rows[1].ReplicaID != "r2" || string(rows[1].Payload) != `{"a":2}` {
		t.Fatalf("ForSale: %+v; want r1 then r2 with r2's last payload", rows)
	}
	for _, r := range rows {
		if r.UpdatedAt.IsZero() || r.UpdatedAt.Location() != time.UTC {
			t.Errorf("%s: updated_at %v; want a UTC time from the database", r.ReplicaID, r.UpdatedAt)
		}
	}
}
