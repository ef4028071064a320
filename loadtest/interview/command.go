// Package interview is `loadtest interview`: the interview path's figures
// measured on running shops, then the path written as one self-contained
// page to study from. It reads GET /api/interview, runs what no run kept on
// the shops measured yet (each lesson queued for the shops' load-test
// agents, as the dashboard's Lessons page queues it; each matrix cell with
// `loadtest matrix --only ROW/FAULT`), reads the path again and writes it
// (internal/interview WriteHTML).
//
//   - command.go: the flags, the steps, the page written
//   - measure.go: the lessons and the matrix cells run, with their progress
package interview

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	model "github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

const summary = "usage: loadtest interview --targets URL,URL --html FILE [--admin-token T] [--measure=false]\n\n" +
	"The flash-sale design question as the questions interviewers ask, each answer's figures measured on these shops.\n" +
	"Runs every lesson and matrix cell whose figure was never measured here (the lessons on the shops' load-test\n" +
	"agents, the cells as loadtest matrix --only does, kill_process on a replica it starts with --shop over this\n" +
	"environment's database and backends: give it the demo's SECKILL_* environment, as make interview does), then writes\n" +
	"the path as one self-contained HTML file. --measure=false writes it from what is kept, unmeasured figures said so.\n\n"

// Command runs `loadtest interview`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("interview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	targets := fs.String("targets", "", "the shop replicas, comma-separated (at least 2 to measure: make demo's)")
	htmlPath := fs.String("html", "", "write the path as one self-contained HTML `file` (required)")
	token := fs.String("admin-token", os.Getenv(config.EnvAdminToken), "the shops' admin token (lesson runs, sales and faults need it when one is set)")
	measure := fs.Bool("measure", true, "run the lessons and matrix cells never measured here before writing the page")
	shop := fs.String("shop", "", "the shop binary loadtest matrix's kill_process cell starts (default: beside loadtest)")
	fs.Usage = func() { fmt.Fprint(stderr, summary); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return load.ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "loadtest interview: unexpected argument %q (see -h)\n", fs.Arg(0))
		return load.ExitUsage
	}
	list, err := load.ParseTargets(*targets)
	if err != nil || len(list) == 0 || (*measure && len(list) < 2) {
		fmt.Fprintln(stderr, "loadtest interview: --targets: give the shop replicas, URL,URL (at least 2 to measure; --measure=false needs one)")
		return load.ExitUsage
	}
	if *htmlPath == "" {
		fmt.Fprintln(stderr, "loadtest interview: --html: give the file to write the page to")
		return load.ExitUsage
	}
	c := shopapi.NewClient(4, 30*time.Second, *token)
	defer c.Close()
	page, err := read(ctx, c, list[0])
	if err != nil {
		fmt.Fprintf(stderr, "loadtest interview: %v\n", err)
		return load.ExitFail
	}
	fmt.Fprintf(stdout, "interview path: %d figures measured here, %d not yet\n", page.Measured, page.Unmeasured)
	if *measure && page.Unmeasured > 0 {
		m := measurer{c: c, targets: list, token: *token, shop: *shop, out: stdout, errs: stderr}
		m.run(ctx, missing(page))
		if page, err = read(ctx, c, list[0]); err != nil {
			fmt.Fprintf(stderr, "loadtest interview: %v\n", err)
			return load.ExitFail
		}
		fmt.Fprintf(stdout, "interview path: %d figures measured here, %d not yet\n", page.Measured, page.Unmeasured)
	}
	return write(stdout, stderr, page, *htmlPath)
}

// read is GET /api/interview on target.
func read(ctx context.Context, c *shopapi.Client, target string) (model.Page, error) {
	var page model.Page
	_, err := c.CallJSON(ctx, http.MethodGet, strings.TrimRight(target, "/")+"/api/interview", nil, http.StatusOK, &page)
	if err != nil {
		return model.Page{}, fmt.Errorf("GET /api/interview: %w", err)
	}
	return page, nil
}

// write writes page to path and says so.
func write(stdout, stderr io.Writer, page model.Page, path string) int {
	host, _ := os.Hostname()
	var buf bytes.Buffer
	err := model.WriteHTML(&buf, page, time.Now(), fmt.Sprintf("%s, %d cores", host, runtime.NumCPU()))
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest interview: --html: %v\n", err)
		return load.ExitFail
	}
	fmt.Fprintf(stdout, "interview page written to %s\n", path)
	return load.ExitOK
}
