package docs

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shape every Go file keeps: a function (a declaration or a literal,
// from its func keyword to its closing brace) fits on a screen, and a
// package stays small enough to read as one idea.
const (
	maxFuncLines    = 80
	maxPackageLines = 3000
)

// packageLinesExceptions are packages allowed past maxPackageLines, each
// with why; the list should be empty.
var packageLinesExceptions = map[string]string{}

// goFiles lists every .go file of the repository, relative to the root,
// outside vendored and installed code.
func goFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, rel := range repoFiles(t, func(_, name string) bool { return name == "vendor" }) {
		if strings.HasSuffix(rel, ".go") {
			files = append(files, rel)
		}
	}
	return files
}

func TestNoFunctionOverEightyLines(t *testing.T) {
	fset := token.NewFileSet()
	for _, rel := range goFiles(t) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			name, body := funcName(n)
			if body == nil {
				return true
			}
			if lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, more than %d: split it into named steps",
					rel, fset.Position(n.Pos()).Line, name, lines, maxFuncLines)
			}
			return true
		})
	}
}

// funcName names a function declaration or literal and gives its body;
// a nil body for any other node.
func funcName(n ast.Node) (string, *ast.BlockStmt) {
	switch fn := n.(type) {
	case *ast.FuncDecl:
		return fn.Name.Name, fn.Body
	case *ast.FuncLit:
		return "a function literal", fn.Body
	}
	return "", nil
}

func TestNoPackageOverThreeThousandLines(t *testing.T) {
	lines := map[string]int{}
	for _, rel := range goFiles(t) {
		if strings.HasSuffix(rel, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		lines[filepath.ToSlash(filepath.Dir(rel))] += bytes.Count(src, []byte("\n"))
	}
	var over []string
	for dir, n := range lines {
		if _, excepted := packageLinesExceptions[dir]; n > maxPackageLines && !excepted {
			over = append(over, fmt.Sprintf("%s (%d)", dir, n))
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Errorf("packages with more than %d lines of non-test Go (split each by what its files do): %s",
			maxPackageLines, strings.Join(over, ", "))
	}
}
