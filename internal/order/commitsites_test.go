package order_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
	"loadtest/minishop":           "the yardstick shop, a program of its own that make bench measures beside ours",
}

// TestOnlyOrderCommitsAnOrder: every Commit() and Transaction(...) call of
// the project's non-test code is in a package of committers; a new package
// that commits fails here until it says why (or moves its commit into
// internal/order).
func TestOnlyOrderCommitsAnOrder(t *testing.T) {
	root := testenv.RepoRoot(t)
	found := commitSites(t, root)
	var outside []string
	for pkg, where := range found {
		if _, ok := committers[pkg]; !ok {
			outside = append(outside, pkg+" ("+where+")")
		}
	}
	sort.Strings(outside)
	for _, o := range outside {
		t.Errorf("%s commits a transaction: an order commits only in internal/order; anything else, add it to committers with why", o)
	}
	for pkg := range committers {
		if _, ok := found[pkg]; !ok {
			t.Errorf("committers lists %s, which commits nothing any more: drop it from the list", pkg)
		}
	}
}

// commitSites maps each package directory (relative to root) whose
// non-test Go files call Commit() or Transaction(...) to the first place.
func commitSites(t *testing.T, root string) map[string]string {
	t.Helper()
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if _, done := found[pkg]; done {
			return nil
		}
		if line := firstCommit(t, path); line != 0 {
			found[pkg] = filepath.ToSlash(rel) + ":" + strconv.Itoa(line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// firstCommit is the line of the file's first x.Commit() or
// x.Transaction(f, ...) call, 0 if none.
func firstCommit(t *testing.T, path string) int {
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
