package docs

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy's registration
	"github.com/seckill-lab/seckill/internal/matrix"
)

func TestReadmeListsEveryStrategy(t *testing.T) {
	got := firstColumn(t, readFile(t, "README.md"), "| strategy | what it is |")
	sameSet(t, "README's strategy table against the registry", got, lockstrategy.Names())
}

func TestReadmeListsEveryLesson(t *testing.T) {
	var want []string
	for _, l := range catalogue.Catalogue {
		want = append(want, l.Name)
	}
	got := firstColumn(t, readFile(t, "README.md"), "| lesson | unsafe setup → fix |")
	sameSet(t, "README's lesson table against the catalogue", got, want)
}

// The README lists, under "Lessons and faults", each point of the seeds no
// lesson runs and why not, as internal/catalogue.NotTaught says (one "- "
// line each, in its order), and nothing else between the intro and the
// commands.
func TestReadmeListsWhatNoLessonRuns(t *testing.T) {
	readme := readFile(t, "README.md")
	start := strings.Index(readme, "`TestReadmeListsWhatNoLessonRuns` keeps this list equal to it):\n\n")
	if start < 0 {
		t.Fatal("README: no list of the seeds' points no lesson runs")
	}
	list := readme[start:]
	list = list[strings.Index(list, "\n\n")+2:]
	list = list[:strings.Index(list, "\n\n")]
	var want []string
	for _, p := range catalogue.NotTaught {
		want = append(want, "- "+p.Point+". Why not: "+p.Why+".")
	}
	if got := strings.Split(list, "\n"); !slices.Equal(got, want) {
		t.Errorf("README's list of the seeds' points no lesson runs:\n%s\nwant (internal/catalogue.NotTaught):\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// makeTarget matches a Makefile target with a help line, as `make help`
// lists them.
var makeTarget = regexp.MustCompile(`(?m)^([a-zA-Z0-9_-]+):.*## `)

func TestReadmeListsEveryMakeTarget(t *testing.T) {
	var want []string
	for _, m := range makeTarget.FindAllStringSubmatch(readFile(t, "Makefile"), -1) {
		want = append(want, "make "+m[1])
	}
	got := firstColumn(t, readFile(t, "README.md"), "| command | what |")
	sameSet(t, "README's command table against the Makefile", got, want)
}

var (
	envLiteral = regexp.MustCompile(`"(SECKILL_[A-Z][A-Z0-9_]*)"`)
	envName    = regexp.MustCompile(`SECKILL_[A-Z][A-Z0-9_]*`)
)

// testSupport are packages that only tests and benchmarks use: a variable
// read there is a test's, not the shop's or the load tool's.
var testSupport = []string{"internal/testenv", "internal/lockstrategy/locktest"}

// environment returns the SECKILL_* names the programs read (string
// literals in non-test Go files outside the test-support packages) and
// every SECKILL_* name anything in the repository reads or sets (in a test,
// only a literal that is the whole name: "SECKILL_X=old" is a fixture).
func environment(t *testing.T) (programs, all []string) {
	t.Helper()
	seenP, seenA := map[string]bool{}, map[string]bool{}
	add := func(seen map[string]bool, list *[]string, name string) {
		if !seen[name] {
			seen[name] = true
			*list = append(*list, name)
		}
	}
	for _, rel := range repoFiles(t, func(rel, _ string) bool { return rel == "docs" }) {
		if rel == "README.md" || !readsEnvironment(rel) {
			continue
		}
		text := readFile(t, rel)
		names := envName.FindAllString(text, -1)
		if strings.HasSuffix(rel, "_test.go") { // a test's own fixtures are not read: only exact names count
			names = nil
			for _, m := range envLiteral.FindAllStringSubmatch(text, -1) {
				names = append(names, m[1])
			}
		}
		for _, n := range names {
			add(seenA, &all, n)
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !inAny(rel, testSupport) {
			for _, m := range envLiteral.FindAllStringSubmatch(text, -1) {
				add(seenP, &programs, m[1])
			}
		}
	}
	return programs, all
}

// readsEnvironment says whether a file is code, a script or a configuration
// that may read the environment.
func readsEnvironment(rel string) bool {
	switch filepath.Ext(rel) {
	case ".go", ".sh", ".mjs", ".js", ".yml", ".yaml":
		return true
	}
	base := filepath.Base(rel)
	return base == "Makefile" || base == "Dockerfile"
}

func inAny(rel string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

func TestReadmeListsEveryVariable(t *testing.T) {
	programs, all := environment(t)
	readme := readFile(t, "README.md")
	config := firstColumn(t, readme, "| variable | default |")
	others := firstColumn(t, readme, "| variable | what |")
	sameSet(t, "README's configuration table against what the programs read", config, programs)
	sameSet(t, "README's two variable tables against every SECKILL_* name in the repository",
		append(config, others...), all)
}

// README's verdict-matrix table says what each cell word means: every word
// of internal/matrix.Kinds, nothing else.
func TestReadmeListsEveryMatrixWord(t *testing.T) {
	got := firstColumn(t, readFile(t, "README.md"), "| word | when |")
	sameSet(t, "README's matrix words against matrix.Kinds", got, matrix.Kinds)
}
