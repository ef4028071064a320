package inventory_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// ownedTables are the tables inventory owns: a sale's row, its orders and
// the tickets that failed to become orders.
var ownedTables = regexp.MustCompile("(?i)\\b(from|update|into|join)\\s+`?(sales|orders|ticket_failures)\\b")

// ownedModels are inventory's gorm models of those tables.
var ownedModels = map[string]bool{"Order": true, "Sale": true, "TicketFailure": true}

// gormRowCalls are the gorm calls that read or write a model's table.
var gormRowCalls = map[string]bool{
	"Take": true, "First": true, "Last": true, "Find": true, "Create": true, "CreateInBatches": true,
	"Save": true, "Delete": true, "Model": true, "Updates": true, "FirstOrCreate": true,
}

// rowReaders are the packages outside inventory allowed to state SQL on
// the owned tables, each with why.
var rowReaders = map[string]string{
	"internal/inventory":             "the owner",
	"internal/lockstrategy/locktest": "its database bench makes, hammers and deletes a throwaway row of its own through database/sql, no sale of the shop",
}

// TestOnlyInventoryTouchesItsTables: every statement on sales, orders and
// ticket_failures, and every gorm call on their models, is in inventory
// (or a package listed in rowReaders, with its reason).
func TestOnlyInventoryTouchesItsTables(t *testing.T) {
	touching := packagesTouchingOwnedTables(t, testenv.RepoRoot(t))
	var outside []string
	for pkg, where := range touching {
		if _, ok := rowReaders[pkg]; !ok {
			outside = append(outside, pkg+" ("+where+")")
		}
	}
	sort.Strings(outside)
	for _, o := range outside {
		t.Errorf("%s states SQL on sales/orders/ticket_failures: move the statement into internal/inventory", o)
	}
	for pkg := range rowReaders {
		if _, ok := touching[pkg]; !ok {
			t.Errorf("rowReaders lists %s, which no longer touches the tables: drop it from the list", pkg)
		}
	}
}

// packagesTouchingOwnedTables maps each package directory (relative to
// root) whose non-test Go files touch the owned tables to the first place
// found.
func packagesTouchingOwnedTables(t *testing.T, root string) map[string]string {
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
		if where := touchesOwnedTables(t, path); where != "" {
			found[pkg] = filepath.ToSlash(rel) + ":" + where
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// touchesOwnedTables returns the line of the first string literal with SQL
// on the owned tables, or of the first gorm row call on a variable of an
// owned model, in the file at path; "" if none.
func touchesOwnedTables(t *testing.T, path string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	models := ownedModelVars(f)
	where := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if where != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && ownedTables.MatchString(s) {
				where = strconv.Itoa(fset.Position(n.Pos()).Line)
			}
		case *ast.CallExpr:
			if gormCallOnModel(n, models) {
				where = strconv.Itoa(fset.Position(n.Pos()).Line)
			}
		}
		return true
	})
	return where
}

// gormCallOnModel: call is x.Take(&o ...), x.Create(orders ...) and the
// like, its first argument a variable of an owned model or &inventory.X{}.
func gormCallOnModel(call *ast.CallExpr, models map[string]bool) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !gormRowCalls[sel.Sel.Name] || len(call.Args) == 0 {
		return false
	}
	arg := call.Args[0]
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
		arg = u.X
	}
	switch a := arg.(type) {
	case *ast.Ident:
		return models[a.Name]
	case *ast.CompositeLit:
		return isOwnedModel(a.Type)
	}
	return false
}

// ownedModelVars names the variables of f declared as an owned model, or a
// slice of one: var o inventory.Order, orders := []inventory.Order{...},
// fs := make([]inventory.TicketFailure, n).
func ownedModelVars(f *ast.File) map[string]bool {
	vars := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if isOwnedModel(n.Type) {
				for _, name := range n.Names {
					vars[name.Name] = true
				}
			}
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if i < len(n.Lhs) && isOwnedValue(rhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						vars[id.Name] = true
					}
				}
			}
		}
		return true
	})
	return vars
}

// isOwnedValue: e is inventory.X{...}, []inventory.X{...} or make([]inventory.X, ...).
func isOwnedValue(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.CompositeLit:
		return isOwnedModel(v.Type)
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok && id.Name == "make" && len(v.Args) > 0 {
			return isOwnedModel(v.Args[0])
		}
	}
	return false
}

// isOwnedModel: e is inventory.X, *inventory.X or []inventory.X for an owned model X.
func isOwnedModel(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.ArrayType:
		return isOwnedModel(v.Elt)
	case *ast.StarExpr:
		return isOwnedModel(v.X)
	case *ast.SelectorExpr:
		pkg, ok := v.X.(*ast.Ident)
		return ok && pkg.Name == "inventory" && ownedModels[v.Sel.Name]
	}
	return false
}
