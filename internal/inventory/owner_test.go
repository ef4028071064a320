package inventory_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
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
	unlisted, stale := testenv.Unlisted(testenv.FirstInPackages(t, touchesOwnedTables), rowReaders)
	for _, o := range unlisted {
		t.Errorf("%s states SQL on sales/orders/ticket_failures: move the statement into internal/inventory", o)
	}
	for _, pkg := range stale {
		t.Errorf("rowReaders lists %s, which no longer touches the tables: drop it from the list", pkg)
	}
}

// touchesOwnedTables returns the line of the first string literal with SQL
// on the owned tables, or of the first gorm row call on a variable of an
// owned model, in the file at path; 0 if none.
func touchesOwnedTables(t testing.TB, path string) int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	models := ownedModelVars(f)
	line := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if line != 0 {
			return false
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && ownedTables.MatchString(s) {
				line = fset.Position(n.Pos()).Line
			}
		case *ast.CallExpr:
			if gormCallOnModel(n, models) {
				line = fset.Position(n.Pos()).Line
			}
		}
		return true
	})
	return line
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
