package lessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
)

// LockRow is a sale's row in lock_table, the lock of db-lock-table and
// db-lock-table-plain, as GET /api/faults/lock-row reads it.
type LockRow struct {
	Present     bool   `json:"present"`
	Owner       string `json:"owner"`
	Holds       int64  `json:"holds"`
	ExpiresInMS int64  `json:"expires_in_ms"`
}

func (r LockRow) String() string {
	if !r.Present {
		return "no row"
	}
	return fmt.Sprintf("row of %s, holds %d, expires in %d ms", r.Owner, r.Holds, r.ExpiresInMS)
}

// LockRow reads sale id's lock_table row through target.
func (sc *ScenarioRun) LockRow(ctx context.Context, target string, id uint64) (LockRow, error) {
	var r LockRow
	_, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults/lock-row?sale_id="+strconv.FormatUint(id, 10), nil, http.StatusOK, &r)
	return r, err
}
