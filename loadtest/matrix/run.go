package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// options are a run's settings from the flags.
type options struct {
	targets      []string
	token        string
	seed         int64
	single       bool // --only: seed is the cell's own
	quick, save  bool
	htmlPath     string
	jsonPath     string
	shop, logDir string
}

// observeAll observes cells one after the other on o.targets, prints each
// as it ends and a progress line on stderr, then the summary; the report
// (complete or not) is saved and written. Exit 1 when a cell could not run.
func observeAll(ctx context.Context, stdout, stderr io.Writer, o options, rows []model.Row, cells []cell) int {
	c := shopapi.NewClient(16, 30*time.Second, o.token)
	defer c.Close()
	infos, err := strategies(ctx, c, o.targets[0])
	if err != nil {
		fmt.Fprintf(stderr, "loadtest matrix: GET %s/api/strategies: %v\n", o.targets[0], err)
		return load.ExitFail
	}
	rn := &runner{c: c, targets: o.targets, avail: map[string]shopapi.StrategyInfo{}, shop: o.shop, logDir: o.logDir,
		replay: "loadtest matrix --targets " + strings.Join(o.targets, ",")}
	for _, in := range infos {
		rn.avail[in.Name] = in
	}
	rep := newReport(o, rows, cells)
	fmt.Fprintf(stdout, "matrix: %d cells on %s, seed %d (replay the run: loadtest matrix --targets %s --seed %d%s)\n",
		len(cells), strings.Join(o.targets, ","), o.seed, strings.Join(o.targets, ","), o.seed, quickFlag(o.quick))
	counts := map[string]int{}
	findings, failed, ran := 0, 0, 0
	var spent time.Duration
	for i, cl := range cells {
		if err := waitHealthy(ctx, o.targets); err != nil {
			fmt.Fprintf(stderr, "loadtest matrix: before %s × %s: %v\n", cl.row.Name, cl.fault, err)
			failed++
			break
		}
		seed := o.seed
		if !o.single {
			seed = cellSeed(o.seed, cl.row.Name, cl.fault)
		}
		progress(stderr, i, len(cells), cl, ran, spent, cells[i:])
		start := time.Now()
		got, err := rn.observe(ctx, cl.row, cl.fault, seed)
		if got.Kind != model.NA && got.Kind != model.Skip {
			ran++
			spent += time.Since(start)
		}
		if err != nil {
			// One cell that could not run says why; the others still run.
			failed++
			got.Kind = ""
			got.WhyEn = "could not run: " + err.Error()
			got.WhyZh = "无法运行：" + err.Error()
			fmt.Fprintf(stdout, "[%d/%d] %-30s %-18s could not run: %v\n", i+1, len(cells), cl.row.Name, cl.fault, err)
		}
		rep.set(got)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			continue
		}
		counts[got.Kind]++
		if got.Finding {
			findings++
		}
		if (got.Kind == model.NA || got.Kind == model.Skip) && !o.single {
			continue // counted in the summary; --only ROW/FAULT says why
		}
		fmt.Fprintf(stdout, "[%d/%d] ", i+1, len(cells))
		printCellLine(stdout, got)
	}
	rep.FinishedAt = time.Now().UTC()
	rep.Complete = ctx.Err() == nil && failed == 0
	fmt.Fprintf(stdout, "observed: %s; findings (observed ≠ predicted): %d; could not run: %d; %s\n",
		countWords(counts), findings, failed, rep.FinishedAt.Sub(rep.StartedAt).Round(time.Second))
	code := load.ExitOK
	if failed > 0 {
		code = load.ExitFail
	}
	if err := writeReport(ctx, stdout, stderr, c, o, rep); err != nil {
		fmt.Fprintf(stderr, "loadtest matrix: %v\n", err)
		code = load.ExitFail
	}
	return code
}

// strategies is target's GET /api/strategies once every strategy is
// available, or as it is after 10 s: a backend a fault has just healed
// (the database back from a cut) is seen up again within its health
// check's period, one that is not running never.
func strategies(ctx context.Context, c *shopapi.Client, target string) ([]shopapi.StrategyInfo, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		infos, err := c.Strategies(ctx, target)
		if err != nil {
			return nil, err
		}
		down := false
		for _, in := range infos {
			down = down || !in.Available
		}
		if !down || time.Now().After(deadline) {
			return infos, nil
		}
		if err := load.Sleep(ctx, 500*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// countWords is "holds 3, broken 2": each cell word with its count, in
// Kinds' order.
func countWords(counts map[string]int) string {
	var words []string
	for _, k := range model.Kinds {
		if counts[k] > 0 {
			words = append(words, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	return strings.Join(words, ", ")
}

func quickFlag(q bool) string {
	if q {
		return " --quick"
	}
	return ""
}

// cellSeed is a cell's seed, drawn from the run's and the cell's name, so
// that a cell's replay does not depend on which cells ran before it.
func cellSeed(run int64, row string, f faultkind.Name) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s", run, row, f)
	return int64(h.Sum64()%1_000_000_000) + 1
}

// progress is one line on stderr: cells done, the current one, and the
// time left at the pace of the cells that ran (n/a and skip take none).
func progress(w io.Writer, i, n int, cl cell, ran int, spent time.Duration, rest []cell) {
	left := "?"
	if ran > 0 {
		toRun := 0
		for _, c := range rest {
			if model.Predict(c.row, c.fault).Kind != model.NA {
				toRun++
			}
		}
		left = (spent / time.Duration(ran) * time.Duration(toRun)).Round(time.Second).String()
	}
	fmt.Fprintf(w, "matrix: %d/%d cells done, now %s × %s, about %s left\n", i, n, cl.row.Name, cl.fault, left)
}

// waitHealthy waits (a minute at most) until every target answers
// /healthz: a cell never starts on a replica its predecessor left stopped.
func waitHealthy(ctx context.Context, targets []string) error {
	deadline := time.Now().Add(time.Minute)
	for _, t := range targets {
		for {
			resp, err := http.Get(t + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s does not answer /healthz (%v)", t, err)
			}
			if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return nil
}

// newReport is the run's report with every chosen cell predicted and not
// yet run.
func newReport(o options, rows []model.Row, cells []cell) *report {
	rep := &report{Report: model.Predicted(rows, model.FaultColumns()), index: map[string]int{}}
	chosen := map[string]bool{}
	for _, c := range cells {
		chosen[c.row.Name+"/"+string(c.fault)] = true
	}
	kept := rep.Cells[:0]
	for _, c := range rep.Cells {
		if chosen[c.Row+"/"+string(c.Fault)] {
			rep.index[c.Row+"/"+string(c.Fault)] = len(kept)
			kept = append(kept, c)
		}
	}
	rep.Cells = kept
	rep.StartedAt = time.Now().UTC()
	rep.Targets, rep.Seed, rep.Quick = o.targets, o.seed, o.quick
	rep.Commit, rep.Machine = commit(), machine()
	return rep
}

// report is the run's report as cells fill it.
type report struct {
	model.Report
	index map[string]int
}

func (r *report) set(c model.Cell) {
	if i, ok := r.index[c.Row+"/"+string(c.Fault)]; ok {
		r.Cells[i] = c
	}
}

// commit is the revision this binary was built from.
func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return s.Value[:12]
			}
		}
	}
	// Built without VCS stamping (GOFLAGS=-buildvcs=false): the checkout
	// it runs in, as make matrix runs it.
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// machine is the host and its cores.
func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s (%d cores)", host, runtime.NumCPU())
}

// writeReport saves the report on the first target and writes the files
// asked for.
func writeReport(ctx context.Context, stdout, stderr io.Writer, c *shopapi.Client, o options, rep *report) error {
	var errs []string
	if o.save {
		// An interrupted run (Ctrl-C) is still kept: the save has a context
		// of its own.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		id, err := c.SaveMatrix(sctx, o.targets[0], rep.Report)
		if err != nil {
			errs = append(errs, "saving the report on "+o.targets[0]+": "+err.Error())
		} else {
			fmt.Fprintf(stdout, "report saved as matrix run %d: %s/#/matrix (GET %s/api/matrix)\n", id, o.targets[0], o.targets[0])
		}
	}
	if o.htmlPath != "" {
		var buf bytes.Buffer
		err := model.WriteHTML(&buf, rep.Report)
		if err == nil {
			err = os.WriteFile(o.htmlPath, buf.Bytes(), 0o644)
		}
		if err != nil {
			errs = append(errs, "--html: "+err.Error())
		} else {
			fmt.Fprintf(stdout, "report page written to %s\n", o.htmlPath)
		}
	}
	if o.jsonPath != "" {
		b, err := json.MarshalIndent(rep.Report, "", " ")
		if err == nil {
			err = os.WriteFile(o.jsonPath, b, 0o644)
		}
		if err != nil {
			errs = append(errs, "--json: "+err.Error())
		} else {
			fmt.Fprintf(stdout, "report written to %s\n", o.jsonPath)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// printCellLine writes one cell's line, its replay and, for a finding,
// both reasons.
func printCellLine(w io.Writer, o model.Cell) {
	switch o.Kind {
	case model.NA:
		fmt.Fprintf(w, "%-30s %-18s n/a: %s\n", o.Row, o.Fault, o.WhyEn)
		return
	case model.Skip:
		fmt.Fprintf(w, "%-30s %-18s skip: %s\n", o.Row, o.Fault, o.WhyEn)
		return
	}
	mark := ""
	if o.Finding {
		mark = "   FINDING: observed ≠ predicted"
	}
	fmt.Fprintf(w, "%-30s %-18s observed %-15s predicted %-15s sale %d, %.1f s%s\n", o.Row, o.Fault, o.Kind, o.Predicted.Kind,
		o.SaleID, float64(o.ElapsedMS)/1000, mark)
	fmt.Fprintf(w, "    %s; history %s\n", o.WhyEn, o.History)
	if o.Finding {
		fmt.Fprintf(w, "    predicted because: %s\n", o.Predicted.WhyEn)
	}
	fmt.Fprintf(w, "    replay: %s\n", o.Replay)
}
