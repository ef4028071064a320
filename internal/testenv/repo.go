package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// RepoRoot is the folder of go.mod above the test's working folder.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// FirstInPackages walks the repository's non-test Go files (not vendor,
// node_modules or dot folders) and maps each package folder, relative to
// the root ("internal/order"), to the first place where find reports
// something: find returns a line of the file, 0 for nothing. The tests that
// keep a thing in one package (the commits of an order, the statements on
// the sale's tables) list the packages that do it with this.
func FirstInPackages(t testing.TB, find func(t testing.TB, path string) int) map[string]string {
	t.Helper()
	root := RepoRoot(t)
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
		if line := find(t, path); line != 0 {
			found[pkg] = filepath.ToSlash(rel) + ":" + strconv.Itoa(line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Unlisted is what FirstInPackages found in a package that allowed does
// not list, as sorted "pkg (file:line)"; stale is what allowed lists and
// nothing was found in, sorted.
func Unlisted(found, allowed map[string]string) (unlisted, stale []string) {
	for pkg, where := range found {
		if _, ok := allowed[pkg]; !ok {
			unlisted = append(unlisted, pkg+" ("+where+")")
		}
	}
	for pkg := range allowed {
		if _, ok := found[pkg]; !ok {
			stale = append(stale, pkg)
		}
	}
	sort.Strings(unlisted)
	sort.Strings(stale)
	return unlisted, stale
}
