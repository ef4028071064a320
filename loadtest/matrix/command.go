// Package matrix is `loadtest matrix`: which lock survives which failure,
// every strategy configuration against every fault. --predict prints what
// the lab predicts for each cell (internal/matrix), the table a class reads
// before anything runs. With --targets it observes every cell on running
// shops, each beside its prediction, the fault put where it can do harm (a
// holder inside its section, an armed point before the lock, the sale's row
// held); the database and the history check judge it; a cell that differs
// from its prediction is a finding. The report is kept by the first shop
// (GET /api/matrix) and can be exported as one page (--html).
//
//   - command.go: the flags, the predicted table, the cells chosen
//   - run.go: the cells observed one after the other, the progress, the report
//   - stage.go: how each fault is put where it can do harm
//   - cell.go: one cell observed and judged
//   - probe.go: the buyers that say when the sale sold and when it did not
//   - victim.go: the replica the matrix starts itself to kill
package matrix

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy registered: one row each
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/loadtest/load"
)

const summary = "usage: loadtest matrix --predict [--only ROW/FAULT]\n" +
	"       loadtest matrix --targets URL,URL [--admin-token T] [--quick] [--only ROW/FAULT [--seed N]] [--html FILE]\n\n" +
	"Every strategy configuration against every fault kind. --predict: what the lab predicts for each cell from the\n" +
	"strategy's properties (tokens, expiry, renewal, where the lock and the stock live) and the fault's effect.\n" +
	"--targets: each cell observed on those shop replicas (started with SECKILL_FAULTS=on, as make demo's are), beside\n" +
	"its prediction; a cell that differs is marked FINDING. kill_process runs on a replica the matrix starts itself\n" +
	"(--shop). The report is saved on the first target (GET /api/matrix, the dashboard's #/matrix).\n" +
	"--only names one cell (a row as the table names it, a fault kind); --quick runs one configuration per strategy.\n\n"

// Command runs `loadtest matrix`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	predictOnly := fs.Bool("predict", false, "print the predicted matrix, nothing run")
	only := fs.String("only", "", "one cell, ROW/FAULT (e.g. redis+fencing/pause_holder): its prediction and why, or its observation")
	targets := fs.String("targets", "", "the shop replicas to observe on, comma-separated (at least 2, started with SECKILL_FAULTS=on: make demo's)")
	token := fs.String("admin-token", os.Getenv(config.EnvAdminToken), "the shops' admin token (sales and faults need it when one is set)")
	quick := fs.Bool("quick", false, "one configuration per strategy (its defaults), for class use")
	seed := fs.Int64("seed", 0, "the run's seed (0: from the clock); with --only, the cell's own seed, as its replay line gives it")
	htmlPath := fs.String("html", "", "also write the report (with --predict: the predictions) as one self-contained HTML `file`")
	jsonPath := fs.String("json", "", "also write the report as JSON to `file`")
	shop := fs.String("shop", shopBinary(), "the shop binary the replica killed by kill_process runs (over the environment's database and backends)")
	logDir := fs.String("log-dir", os.TempDir(), "where that replica's log goes")
	save := fs.Bool("save", true, "save the report on the first target (GET /api/matrix)")
	fs.Usage = func() { fmt.Fprint(stderr, summary); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return load.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadtest matrix: unexpected argument %q (see -h)\n", fs.Arg(0))
		return load.ExitUsage
	}
	rows := model.Rows(lockstrategy.All())
	if *quick {
		rows = quickRows(rows)
	}
	if *predictOnly {
		if *only != "" {
			return printCell(stdout, stderr, rows, *only)
		}
		printTable(stdout, rows)
		if *htmlPath != "" {
			return writePredicted(stdout, stderr, rows, *htmlPath)
		}
		return load.ExitOK
	}
	list, err := load.ParseTargets(*targets)
	if err != nil || len(list) < 2 {
		fmt.Fprintf(stderr, "loadtest matrix: --targets: give at least 2 shop replicas (URL,URL) started with faults on, or --predict for the predictions alone\n")
		return load.ExitUsage
	}
	cells, code := selectCells(stderr, rows, *only)
	if code != load.ExitOK {
		return code
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano() % 1_000_000_000
	}
	o := options{targets: list, token: *token, seed: *seed, single: *only != "", quick: *quick, htmlPath: *htmlPath,
		jsonPath: *jsonPath, shop: *shop, logDir: *logDir, save: *save}
	return observeAll(ctx, stdout, stderr, o, rows, cells)
}

// writePredicted writes the predicted matrix as one page: the table a
// class reads before anything runs.
func writePredicted(stdout, stderr io.Writer, rows []model.Row, path string) int {
	var buf bytes.Buffer
	err := model.WriteHTML(&buf, model.Predicted(rows, model.FaultColumns()))
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest matrix: --html: %v\n", err)
		return load.ExitFail
	}
	fmt.Fprintf(stdout, "predicted page written to %s\n", path)
	return load.ExitOK
}

// quickRows are the rows of each strategy as it is by default.
func quickRows(rows []model.Row) []model.Row {
	var out []model.Row
	for _, r := range rows {
		if r.Name == r.Strategy.Name {
			out = append(out, r)
		}
	}
	return out
}

// cell is one row and one fault.
type cell struct {
	row   model.Row
	fault faultkind.Name
}

// selectCells is every cell, or the one --only names; a row or a fault
// that does not exist is a usage error naming it.
func selectCells(stderr io.Writer, rows []model.Row, only string) ([]cell, int) {
	if only == "" {
		// Fault by fault: a column's cells share a stage, and each fault
		// is healed before the next starts.
		var all []cell
		for _, f := range faultkind.All {
			for _, r := range model.Grouped(rows) {
				all = append(all, cell{r, f})
			}
		}
		return all, load.ExitOK
	}
	// The last "/": a row's name may hold one (redis-lua-stock/async).
	i := strings.LastIndex(only, "/")
	if i <= 0 || i == len(only)-1 {
		fmt.Fprintf(stderr, "loadtest matrix: --only %q: want ROW/FAULT, e.g. redis+fencing/pause_holder\n", only)
		return nil, load.ExitUsage
	}
	rowName, fault := only[:i], only[i+1:]
	if !isFault(fault) {
		fmt.Fprintf(stderr, "loadtest matrix: --only: no fault kind %q (kinds: %s)\n", fault, faultNames())
		return nil, load.ExitUsage
	}
	for _, r := range rows {
		if r.Name == rowName {
			return []cell{{r, faultkind.Name(fault)}}, load.ExitOK
		}
	}
	fmt.Fprintf(stderr, "loadtest matrix: --only: no row %q (rows are named as in the table, e.g. redis, redis+fencing, redis+no-watchdog, redis-lua-stock/async)\n", rowName)
	return nil, load.ExitUsage
}

// printCell prints one cell's prediction and why.
func printCell(stdout, stderr io.Writer, rows []model.Row, only string) int {
	cells, code := selectCells(stderr, rows, only)
	if code != load.ExitOK {
		return code
	}
	c := cells[0]
	p := model.Predict(c.row, c.fault)
	fmt.Fprintf(stdout, "%s × %s: predicted %s\n  %s\n  %s\n", c.row.Name, c.fault, p.Kind, p.WhyEn, p.WhyZh)
	return load.ExitOK
}

// shortWords are the table's five-character words for the cell kinds.
var shortWords = map[string]string{
	model.Holds: "holds", model.OverlappedSafe: "fence", model.Unavailable: "pause", model.Stuck: "STUCK",
	model.Broken: "BROKE", model.NA: "  -  ", model.Skip: "skip ",
}

// printTable prints the rows against the faults, numbered, with their
// legend below.
func printTable(w io.Writer, rows []model.Row) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(w, "PREDICTED (from each strategy's properties; no cell has been observed)\n%-*s", width, "")
	for i := range faultkind.All {
		fmt.Fprintf(w, " %5d", i+1)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s", width, r.Name)
		for _, f := range faultkind.All {
			fmt.Fprintf(w, " %5s", shortWords[model.Predict(r, f).Kind])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\nfaults:")
	for i, f := range faultkind.All {
		fmt.Fprintf(w, "  %2d %s\n", i+1, f)
	}
	fmt.Fprint(w, "words: holds = no sections overlapped; fence = overlapped, fencing refused every stale write (overlapped_safe);\n"+
		"  pause = stops selling during the fault, sells again after it (unavailable); STUCK = units neither sold nor sellable;\n"+
		"  BROKE = oversold, lost update or a buyer over the limit (broken); - = the fault cannot touch it (n/a)\n"+
		"one cell's why: loadtest matrix --predict --only ROW/FAULT\n")
}

func isFault(name string) bool {
	for _, f := range faultkind.All {
		if string(f) == name {
			return true
		}
	}
	return false
}

func faultNames() string {
	names := make([]string, len(faultkind.All))
	for i, f := range faultkind.All {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
