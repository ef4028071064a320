// Package matrix is `loadtest matrix`: which lock survives which failure,
// every strategy configuration against every fault. --predict prints what
// the lab predicts for each cell (internal/matrix), the table a class reads
// before anything runs. With --targets it observes the cells on running
// shops, each beside its prediction: this version observes the faults
// whose harm is a holder that outlives its lock (pause_holder,
// expire_zk_session) on the lock strategies, judged by the database; the
// other cells say they are not observed yet.
//
//   - command.go: the flags, the predicted table, the cells chosen, the run
//   - observe.go: one cell observed, and its lines
package matrix

import (
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
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

const summary = "usage: loadtest matrix --predict [--only ROW/FAULT]\n" +
	"       loadtest matrix --targets URL,URL [--admin-token T] [--only ROW/FAULT]\n\n" +
	"Every strategy configuration against every fault kind. --predict: what the lab predicts for each cell from the\n" +
	"strategy's properties (tokens, expiry, renewal, where the lock and the stock live) and the fault's effect.\n" +
	"--targets: each cell observed on those shop replicas (started with SECKILL_FAULTS=on, as make demo's are), beside\n" +
	"its prediction; a cell that differs is marked FINDING. This version observes the stale-holder faults (pause_holder,\n" +
	"expire_zk_session) on the lock strategies but consistent-hash; the other cells are not observed yet.\n" +
	"--only names one cell (a row as the table names it, a fault kind).\n\n"

// Command runs `loadtest matrix`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	predictOnly := fs.Bool("predict", false, "print the predicted matrix, nothing run")
	only := fs.String("only", "", "one cell, ROW/FAULT (e.g. redis+fencing/pause_holder): its prediction and why, or its observation")
	targets := fs.String("targets", "", "the shop replicas to observe on, comma-separated (at least 2, started with SECKILL_FAULTS=on: make demo's)")
	token := fs.String("admin-token", os.Getenv(config.EnvAdminToken), "the shops' admin token (sales and faults need it when one is set)")
	fs.Usage = func() { fmt.Fprint(stderr, summary); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return load.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadtest matrix: unexpected argument %q (see -h)\n", fs.Arg(0))
		return load.ExitUsage
	}
	rows := model.Rows(lockstrategy.All())
	if *predictOnly {
		if *only != "" {
			return printCell(stdout, stderr, rows, *only)
		}
		printTable(stdout, rows)
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
	return observeAll(ctx, stdout, stderr, list, *token, cells)
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
		var all []cell
		for _, r := range rows {
			for _, f := range faultkind.All {
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

// observeAll observes cells one after the other on targets and prints each
// as it ends, then a summary; exit 1 when a cell could not be run.
func observeAll(ctx context.Context, stdout, stderr io.Writer, targets []string, token string, cells []cell) int {
	c := shopapi.NewClient(8, 30*time.Second, token)
	defer c.Close()
	sc := &lessons.ScenarioRun{C: c, Targets: targets}
	infos, err := c.Strategies(ctx, targets[0])
	if err != nil {
		fmt.Fprintf(stderr, "loadtest matrix: GET %s/api/strategies: %v\n", targets[0], err)
		return load.ExitFail
	}
	avail := map[string]shopapi.StrategyInfo{}
	for _, in := range infos {
		avail[in.Name] = in
	}
	replay := "loadtest matrix --targets " + strings.Join(targets, ",")
	counts := map[string]int{}
	findings, notYet, failed := 0, 0, 0
	for i, cl := range cells {
		o, err := observeCell(ctx, sc, avail, cl.row, cl.fault)
		if err != nil {
			// One cell that could not run says why; the others still run.
			failed++
			fmt.Fprintf(stdout, "[%d/%d] %-30s %-18s could not run: %v\n", i+1, len(cells), cl.row.Name, cl.fault, err)
			if ctx.Err() != nil {
				return load.ExitFail
			}
			continue
		}
		if !o.Observable {
			notYet++
			continue
		}
		counts[o.Kind]++
		if o.Finding {
			findings++
		}
		if o.Kind == model.NA && len(cells) > 1 {
			continue // counted in the summary; --only ROW/FAULT says why
		}
		fmt.Fprintf(stdout, "[%d/%d] ", i+1, len(cells))
		printObservation(stdout, o, replay)
	}
	var words []string
	for _, k := range model.Kinds {
		if counts[k] > 0 {
			words = append(words, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	fmt.Fprintf(stdout, "observed: %s; findings (observed ≠ predicted): %d; could not run: %d; not observed yet: %d (this version observes the stale-holder faults: %s)\n",
		strings.Join(words, ", "), findings, failed, notYet, observedNames())
	if failed > 0 {
		return load.ExitFail
	}
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
