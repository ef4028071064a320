package contentionlessons

import "context"

// forUpdateNeedsTx: SELECT ... FOR UPDATE outside a transaction locks the
// row only for that statement (db-pessimistic-autocommit): the buyers read
// and write the stock at once, lost updates and oversell, on one replica as
// on two; inside the order's transaction (db-pessimistic) it holds.
func forUpdateNeedsTx(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	return sc.BrokenThenHeld(ctx, "scenario for-update-needs-tx", "db-pessimistic-autocommit", "db-pessimistic")
}
