// Package matrix is `loadtest matrix`: which lock survives which failure,
// every strategy configuration against every fault. This version prints
// what the lab predicts for each cell (internal/matrix), the table a class
// reads before anything runs; observing the cells on a demo is still to
// come, and the command says so rather than print a table nobody measured.
//
//   - command.go: the flags, the table and one cell's reasons
package matrix

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy registered: one row each
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/loadtest/load"
)

const summary = "usage: loadtest matrix --predict [--only ROW/FAULT]\n\n" +
	"Every strategy configuration against every fault kind: what the lab predicts for each cell from the\n" +
	"strategy's properties (tokens, expiry, renewal, where the lock and the stock live) and the fault's effect.\n" +
	"--only names one cell (a row as the table names it, a fault kind) and prints why, in English and Chinese.\n" +
	"Observing the cells on a running demo is not built yet: --predict is required.\n\n"

// Command runs `loadtest matrix`.
func Command(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	predictOnly := fs.Bool("predict", false, "print the predicted matrix (required: observing the cells is not built yet)")
	only := fs.String("only", "", "one cell, ROW/FAULT (e.g. redis+fencing/pause_holder): its prediction and why")
	fs.Usage = func() { fmt.Fprint(stderr, summary); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return load.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadtest matrix: unexpected argument %q (see -h)\n", fs.Arg(0))
		return load.ExitUsage
	}
	if !*predictOnly {
		fmt.Fprint(stderr, "loadtest matrix: --predict is required: this version prints the lab's predictions; observing the cells on a demo is not built yet (see -h)\n")
		return load.ExitUsage
	}
	rows := model.Rows(lockstrategy.All())
	if *only != "" {
		return printCell(stdout, stderr, rows, *only)
	}
	printTable(stdout, rows)
	return load.ExitOK
}

// printCell prints one cell's prediction and why; a row or a fault that
// does not exist is a usage error naming it.
func printCell(stdout, stderr io.Writer, rows []model.Row, only string) int {
	// The last "/": a row's name may hold one (redis-lua-stock/async).
	i := strings.LastIndex(only, "/")
	if i <= 0 || i == len(only)-1 {
		fmt.Fprintf(stderr, "loadtest matrix: --only %q: want ROW/FAULT, e.g. redis+fencing/pause_holder\n", only)
		return load.ExitUsage
	}
	rowName, fault := only[:i], only[i+1:]
	if !isFault(fault) {
		fmt.Fprintf(stderr, "loadtest matrix: --only: no fault kind %q (kinds: %s)\n", fault, faultNames())
		return load.ExitUsage
	}
	for _, r := range rows {
		if r.Name == rowName {
			p := model.Predict(r, faultkind.Name(fault))
			fmt.Fprintf(stdout, "%s × %s: predicted %s\n  %s\n  %s\n", r.Name, fault, p.Kind, p.WhyEn, p.WhyZh)
			return load.ExitOK
		}
	}
	fmt.Fprintf(stderr, "loadtest matrix: --only: no row %q (rows are named as in the table, e.g. redis, redis+fencing, redis+no-watchdog, redis-lua-stock/async)\n", rowName)
	return load.ExitUsage
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
