package order_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// committers are the packages allowed to commit a transaction (a Commit()
// call, or gorm's Transaction(func)), each with why. An order commits only
// in internal/order; the others commit rows that are no order.
var committers = map[string]string{
	"internal/order":              "the order's transaction, on every road: the critical section, the end of a lease's transaction, the group commit, the queue consumer, the reservations",
	"internal/inventory":          "StockAndReturned reads one consistent snapshot; ReclaimTickets records the tickets that failed, holding the sale's row, and makes no order",
	"internal/sale":               "creating a sale: its row and its stock",
	"internal/runs":               "a load run's records",
	"internal/catalogue/lessondb": "a lesson run's records",
	"internal/classroom":          "a class's questions and votes: a question asked in its session, a vote counted under its question's row lock",
	"loadtest/minishop":           "the yardstick shop, a program of its own that make bench measures beside ours",
}

// TestOnlyOrderCommitsAnOrder: every Commit() and Transaction(...) call of
// the project's non-test code is in a package of committers; a new package
// that commits fails here until it says why (or moves its commit into
// internal/order).
func TestOnlyOrderCommitsAnOrder(t *testing.T) {
	unlisted, stale := testenv.Unlisted(testenv.FirstInPackages(t, firstCommit), committers)
	for _, o := range unlisted {
		t.Errorf("%s commits a transaction: an order commits only in internal/order; anything else, add it to committers with why", o)
	}
	for _, pkg := range stale {
		t.Errorf("committers lists %s, which commits nothing any more: drop it from the list", pkg)
	}
}

// firstCommit is the line of the file's first x.Commit() or
// x.Transaction(f, ...) call, 0 if none.
func firstCommit(t testing.TB, path string) int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	line := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || line != 0 {
			return line == 0
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok &&
			(sel.Sel.Name == "Commit" && len(call.Args) == 0 || sel.Sel.Name == "Transaction" && len(call.Args) > 0) {
			line = fset.Position(call.Pos()).Line
		}
		return true
	})
	return line
}
