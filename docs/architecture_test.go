package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxMapLines bounds the map: past it, it is a log again.
const maxMapLines = 400

// skipDir says which folders hold no package of the project: version
// control, installed or built files, services' data, test data.
func skipDir(rel, name string) bool {
	if rel == "." {
		return false
	}
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" ||
		rel == "bin" || rel == "bench"
}

// goPackages lists the folders that hold Go files, relative to the root.
func goPackages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var pkgs []string
	for _, rel := range repoFiles(t, nil) {
		if dir := filepath.ToSlash(filepath.Dir(rel)); strings.HasSuffix(rel, ".go") && !seen[dir] {
			seen[dir] = true
			pkgs = append(pkgs, dir)
		}
	}
	return pkgs
}

func TestLayoutListsEveryPackage(t *testing.T) {
	rows := firstColumn(t, readFile(t, "docs/ARCHITECTURE.md"), "| where | what |")
	var packages []string
	for _, r := range rows {
		r = strings.TrimSuffix(r, "/")
		if st, err := os.Stat(filepath.Join(root, r)); err != nil || !st.IsDir() {
			t.Errorf("the layout lists %q, which is no folder of the repository", r)
		}
		packages = append(packages, r)
	}
	var missing []string
	listed := map[string]bool{}
	for _, p := range packages {
		listed[p] = true
	}
	for _, p := range goPackages(t) {
		if !listed[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the layout in docs/ARCHITECTURE.md misses these packages (one row each): %v", missing)
	}
}

func TestMapIsAMap(t *testing.T) {
	doc := readFile(t, "docs/ARCHITECTURE.md")
	if n := strings.Count(doc, "\n"); n > maxMapLines {
		t.Errorf("docs/ARCHITECTURE.md has %d lines, more than %d: move the detail into a decision", n, maxMapLines)
	}
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "#") && strings.Contains(strings.ToLower(l), "issue") {
			t.Errorf("a section named after an issue: %q", l)
		}
	}
}

// decisionFile names a decision: docs/decisions/NNNN-title.md.
var decisionFile = regexp.MustCompile(`^[0-9]{4}-[a-z0-9-]+\.md$`)

func decisions(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "docs/decisions"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !decisionFile.MatchString(e.Name()) {
			t.Errorf("docs/decisions/%s: a decision is named NNNN-title.md", e.Name())
			continue
		}
		names = append(names, e.Name())
	}
	return names
}

func TestEveryDecisionIsLinkedAndComplete(t *testing.T) {
	doc := readFile(t, "docs/ARCHITECTURE.md")
	for _, name := range decisions(t) {
		if !strings.Contains(doc, "(decisions/"+name+")") {
			t.Errorf("docs/ARCHITECTURE.md does not link decisions/%s", name)
		}
		text := readFile(t, "docs/decisions/"+name)
		for _, h := range []string{"## Context", "## Decision", "## Consequences", "## Interleavings considered"} {
			if !strings.Contains(text, "\n"+h+"\n") {
				t.Errorf("docs/decisions/%s has no %q", name, h)
			}
		}
	}
}

// markdownLink matches a link's target, up to an optional #fragment.
var markdownLink = regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)

// pointerOutside matches what a reader of the repository cannot open: a
// design note kept elsewhere, an issue by number.
var pointerOutside = regexp.MustCompile(`DESIGN\.md|\b[Ii]ssue [0-9]`)

func TestDocsSayTheThingItself(t *testing.T) {
	docs := []string{"README.md", "docs/ARCHITECTURE.md"}
	for _, name := range decisions(t) {
		docs = append(docs, "docs/decisions/"+name)
	}
	for _, rel := range docs {
		text := readFile(t, rel)
		if m := pointerOutside.FindString(text); m != "" {
			t.Errorf("%s points outside the repository (%q): write the thing itself", rel, m)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.Dir(rel), target)); err != nil {
				t.Errorf("%s links %s, which does not exist", rel, target)
			}
		}
	}
}
