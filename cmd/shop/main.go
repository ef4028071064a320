// Command shop is one Seckill Lab shop replica and its tooling:
//
//	shop serve    run one replica: the API, /metrics, the dashboard
//	shop migrate  apply the database migrations and exit
//	shop demo     migrate, start N replicas and M load-test agents as
//	              processes, print the dashboard URL and each one's status
//
// This file and its siblings are wiring only: configuration, connections,
// lifecycle. The behaviour lives in internal/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy registers itself
)

const usage = `usage: shop <command> [flags]

Commands:
  serve     run one shop replica (API, /metrics); applies migrations first
  migrate   apply the database migrations and exit
  demo      migrate, start N replicas (ports from SECKILL_HTTP_ADDR's) and M load-test
            agents as processes, print the dashboard URL; Ctrl-C stops them all

Run "shop <command> -h" for its flags and environment variables.
`

const (
	serveSummary = "Runs one shop replica: applies the migrations, connects to the backends, serves the\n" +
		"API. SIGINT/SIGTERM stop it gracefully: in-flight orders finish and release their locks."
	demoSummary = "Applies the migrations, then starts -replicas `shop serve` processes (shop-1..N, on\n" +
		"consecutive ports from -http-addr's, with SECKILL_FAULTS=on) and -agents `loadtest agent`\n" +
		"processes, and prints the dashboard URL and one status line per process. A process that\n" +
		"dies is reported on stderr and not restarted. Ctrl-C or SIGTERM stops every process\n" +
		"(SIGTERM, then SIGKILL after 30 s) and exits 0. The serve flags below are passed to each replica."
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one kills at once (default
		// behaviour) instead of waiting out the graceful shutdown.
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the exit code: 0 done, 1 failed,
// 2 bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		cfg, err := parseServe(cmd, serveSummary, rest, stderr)
		if err != nil {
			return usageError(stderr, err)
		}
		return serve(ctx, cfg, serveOptions{stdout: stdout, stderr: stderr})
	case "demo":
		cfg, err := parseDemo(rest, stderr)
		if err != nil {
			return usageError(stderr, err)
		}
		return demo(ctx, cfg, stdout, stderr)
	case "migrate":
		return migrate(ctx, rest, stdout, stderr)
	default:
		if cmd != "-h" && cmd != "-help" && cmd != "--help" && cmd != "help" {
			fmt.Fprintf(stderr, "shop: unknown command %q\n\n", cmd)
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
}

// usageError reports a flag problem; -h has already printed the usage.
func usageError(stderr io.Writer, err error) int {
	if !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "shop: %v\n", err)
	}
	return 2
}
