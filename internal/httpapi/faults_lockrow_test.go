package httpapi

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/seckill-lab/seckill/internal/config"
)

// GET /api/faults/lock-row reads a sale's lock_table row where faults run:
// none before an order, the crashed holder's after crash_after_setnx fires
// in db-lock-table-plain (an owner, one hold, an expiry ahead); a bad
// sale_id is a 400; off, 403.
func TestFaultsLockRow(t *testing.T) {
	faultsOn(t)
	e := newEnv(t)
	wantError(t, e.get("/api/faults/lock-row"), http.StatusBadRequest, "invalid_field", "sale_id")
	wantError(t, e.get("/api/faults/lock-row?sale_id=x"), http.StatusBadRequest, "invalid_field", "sale_id")
	v := e.createSale(t, `{"strategy":"db-lock-table-plain","stock":10,"ttl_ms":60000}`)
	path := "/api/faults/lock-row?sale_id=" + strconv.FormatUint(v.ID, 10)
	var row struct {
		Present     bool   `json:"present"`
		Owner       string `json:"owner"`
		Holds       int64  `json:"holds"`
		ExpiresInMS int64  `json:"expires_in_ms"`
	}
	rec := e.get(path)
	mustJSON(t, rec, &row)
	if rec.Code != http.StatusOK || row.Present {
		t.Fatalf("before any order: %d %s, want no row", rec.Code, rec.Body)
	}
	if rec := e.post("/api/faults", `{"kind":"crash_after_setnx"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	wantError(t, e.post(ordersPath(v.ID), `{"user_id":"crashed"}`), http.StatusServiceUnavailable, "holder_crashed", "")
	rec = e.get(path)
	mustJSON(t, rec, &row)
	if rec.Code != http.StatusOK || !row.Present || row.Owner == "" || row.Holds != 1 || row.ExpiresInMS <= 0 {
		t.Fatalf("after the crash: %d %s, want the crashed holder's row", rec.Code, rec.Body)
	}
	t.Setenv(config.EnvFaults, "")
	wantError(t, newEnv(t).get(path), http.StatusForbidden, "faults_disabled", "")
}
