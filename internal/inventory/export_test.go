package inventory

// CheckConsecutive is checkConsecutive, for the batch test.
var CheckConsecutive = checkConsecutive

// NoteFailed records that ticket failed for reason, as a loaded ledger
// would have read it, for the ledger's unit test.
func (l *Ledger) NoteFailed(ticket, reason string) { l.failed[ticket] = reason }

// PlainDecrement makes DecrementAndCommit take its path for a server
// without compound statements (MySQL) until the test ends.
func PlainDecrement(cleanup func(func())) {
	noCompoundCommit.Store(true)
	cleanup(func() { noCompoundCommit.Store(false) })
}
