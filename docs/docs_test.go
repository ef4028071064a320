package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// root is the repository's root, seen from this package's folder.
const root = ".."

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var backticked = regexp.MustCompile("`([^`]+)`")

// firstColumn returns the backticked names in the first cell of each row of
// the Markdown table whose header row is header.
func firstColumn(t *testing.T, doc, header string) []string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		t.Fatalf("no table with the header %q", header)
	}
	var names []string
	for _, l := range lines[start+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cell := strings.SplitN(strings.TrimPrefix(l, "|"), "|", 2)[0]
		for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// sameSet reports, by name, what want has that got lacks and what got has
// that want does not.
func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	in := func(set []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range set {
			m[s] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var missing, extra []string
	for s := range w {
		if !g[s] {
			missing = append(missing, s)
		}
	}
	for s := range g {
		if !w[s] {
			extra = append(extra, s)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s: missing %v", what, missing)
	}
	if len(extra) > 0 {
		t.Errorf("%s: lists what does not exist: %v", what, extra)
	}
}

// repoFiles lists the repository's files, relative to the root, outside
// the folders skipDir names and those skip (when not nil) names too.
func repoFiles(t *testing.T, skip func(rel, name string) bool) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) || skip != nil && rel != "." && skip(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
