package matrix

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/loadtest/load"
)

func runMatrix(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := Command(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// The table has a line per row with a word per fault, says it is a
// prediction, and numbers the faults in its legend.
func TestPredictPrintsEveryRowAndFault(t *testing.T) {
	code, out, errs := runMatrix("--predict")
	if code != load.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.HasPrefix(out, "PREDICTED") {
		t.Errorf("the table does not say it is a prediction:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	for _, r := range model.Rows(lockstrategy.All()) {
		found := false
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == len(faultkind.All)+1 && f[0] == r.Name {
				found = true
			}
		}
		if !found {
			t.Errorf("no line with a word per fault for row %s", r.Name)
		}
	}
	for _, f := range faultkind.All {
		if !strings.Contains(out, " "+string(f)+"\n") {
			t.Errorf("the legend misses fault %s", f)
		}
	}
}

// --only prints one cell with why in both languages, also for a row whose
// name holds a "/"; a bad cell is a usage error naming what is wrong, and
// observing needs at least two replicas.
func TestOnlyOneCellAndRefusals(t *testing.T) {
	code, out, _ := runMatrix("--predict", "--only", "redis-lua-stock/async/kill_consumer")
	if code != load.ExitOK || !strings.Contains(out, "predicted holds") || !strings.Contains(out, "消费者") {
		t.Errorf("exit %d, output %q: want the cell, holds, with why in English and Chinese", code, out)
	}
	code, out, _ = runMatrix("--predict", "--only", "redis+fencing/stop_process")
	if code != load.ExitOK || !strings.Contains(out, "predicted overlapped_safe") {
		t.Errorf("exit %d, output %q: want overlapped_safe", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "give at least 2 shop replicas"},
		{[]string{"--targets", "http://127.0.0.1:1"}, "give at least 2 shop replicas"},
		{[]string{"--targets", "127.0.0.1:1,127.0.0.1:2"}, "give at least 2 shop replicas"},
		{[]string{"--targets", "http://127.0.0.1:1,http://127.0.0.1:2", "--only", "redis/nope"}, `no fault kind "nope"`},
		{[]string{"--predict", "--only", "redis"}, "want ROW/FAULT"},
		{[]string{"--predict", "--only", "redis/"}, "want ROW/FAULT"},
		{[]string{"--predict", "--only", "redis/pause"}, `no fault kind "pause"`},
		{[]string{"--predict", "--only", "rediss/pause_holder"}, `no row "rediss"`},
		{[]string{"--predict", "extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "flag provided but not defined"},
	} {
		code, out, errs := runMatrix(tc.args...)
		if code != load.ExitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errs, load.ExitUsage, tc.want)
		}
	}
}

// --predict --html writes the predicted table as one page that carries
// every row; an unwritable path is an error that says --html.
func TestPredictWritesItsPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.html")
	code, out, errs := runMatrix("--predict", "--html", path)
	if code != load.ExitOK || !strings.Contains(out, "predicted page written to "+path) {
		t.Fatalf("exit %d, stdout tail %q, stderr %q", code, out[max(0, len(out)-200):], errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range model.Rows(lockstrategy.All()) {
		if !strings.Contains(string(b), `"name":"`+r.Name+`"`) {
			t.Errorf("the page misses row %s", r.Name)
		}
	}
	code, _, errs = runMatrix("--predict", "--html", filepath.Join(t.TempDir(), "no", "such", "dir", "m.html"))
	if code != load.ExitFail || !strings.Contains(errs, "--html") {
		t.Errorf("an unwritable page: exit %d, stderr %q", code, errs)
	}
}
