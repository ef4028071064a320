package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	binMu   sync.Mutex
	binDir  string
	binMade = map[string]string{} // package path -> built binary
	// plain: the binaries are built without -race (PlainBinaries).
	plain bool
)

// PlainBinaries makes Binary build without -race for the rest of this test
// binary: for packages whose tests are timed scenarios (the lessons, the
// chaos run) on real processes, where a race-built shop costs several
// times the CPU and, beside every other package's tests on two cores,
// starved the scenarios' holds and faults out of their windows. The same
// shop code runs race-checked in the e2e processes and in-process in its
// own packages' tests. Call it from TestMain, before any Binary.
func PlainBinaries() { plain = true }

// Binary builds the Go command pkg (e.g. "github.com/seckill-lab/seckill/
// cmd/shop") once per test binary, with -race when the test runs with it
// (unless PlainBinaries),
// and returns its path: tests that start real `shop serve` or `loadtest
// agent` processes share one build. The binaries live in one temporary
// folder for the life of the test binary.
func Binary(t testing.TB, pkg string) string {
	t.Helper()
	SkipInShort(t)
	binMu.Lock()
	defer binMu.Unlock()
	if path, ok := binMade[pkg]; ok {
		return path
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "seckill-testbin-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
	}
	path := filepath.Join(binDir, filepath.Base(pkg))
	args := []string{"build", "-o", path}
	if raceEnabled && !plain {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	binMade[pkg] = path
	return path
}
