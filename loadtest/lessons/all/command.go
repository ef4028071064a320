package all

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Command is `loadtest scenario [flags] NAME[,NAME...]|all|list`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenario", flag.ContinueOnError)
	fs.SetOutput(stderr)
	targets := fs.String("targets", "http://127.0.0.1:8080", "comma-separated shop `URLs`; some scenarios need two replicas")
	token := fs.String("admin-token", config.Get(config.EnvAdminToken, ""), "admin bearer `token` for sales and faults (env "+config.EnvAdminToken+")")
	timeout := fs.Duration("timeout", 30*time.Second, "per-request `timeout`")
	pace := fs.String("pace", catalogue.PaceNormal, "`pace`: normal, or class (seconds-long overlaps, cases of 20 s or more and a pause between them, where the lesson has one)")
	timeline := fs.String("timeline", "", "save the lock timeline of each sale the scenarios made as a self-contained HTML `file` (several: file-<sale id>.html)")
	fs.Usage = func() { scenarioUsage(stderr, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return load.ExitOK
		}
		return load.ExitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return load.ExitUsage
	}
	if fs.Arg(0) == "list" {
		for _, s := range Scenarios {
			fmt.Fprintf(stdout, "%s\t%s\n", s.Name, s.Predict)
		}
		return load.ExitOK
	}
	if !catalogue.ValidPace(*pace) {
		fmt.Fprintf(stderr, "loadtest scenario: --pace must be %s or %s, not %q\n", catalogue.PaceNormal, catalogue.PaceClass, *pace)
		return load.ExitUsage
	}
	chosen, ok := chooseScenarios(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "loadtest scenario: unknown scenario in %q (try list)\n", fs.Arg(0))
		return load.ExitUsage
	}
	urls := splitURLs(*targets)
	if len(urls) == 0 {
		fmt.Fprintln(stderr, "loadtest scenario: --targets is empty")
		return load.ExitUsage
	}
	c := shopapi.NewClient(64, *timeout, *token)
	defer c.Close()
	sc := lessons.NewScenarioRun(c, urls, *pace, nil, nil)
	code := runScenarios(ctx, sc, chosen, stdout)
	if *timeline != "" {
		files, err := c.SaveTimelines(context.WithoutCancel(ctx), urls[0], *timeline, sc.Sales())
		for _, f := range files {
			fmt.Fprintf(stderr, "timeline written to %s\n", f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadtest scenario: %v\n", err)
			code = load.ExitFail
		}
	}
	return code
}

// scenarioUsage prints the usage with the catalogue's scenarios.
func scenarioUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: loadtest scenario [flags] NAME[,NAME...]|all|list\n\nThe shops must run with %s=on.\nScenarios:\n", config.EnvFaults)
	for _, s := range Scenarios {
		fmt.Fprintf(w, "  %-26s %s\n", s.Name, s.Title)
	}
	fs.PrintDefaults()
}

// chooseScenarios is every scenario for "all", else the ones named
// (comma-separated), in the catalogue's order; false when a name is unknown.
func chooseScenarios(names string) ([]lessons.Scenario, bool) {
	if names == "all" {
		return Scenarios, true
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var chosen []lessons.Scenario
	for _, s := range Scenarios {
		if want[s.Name] {
			chosen = append(chosen, s)
			delete(want, s.Name)
		}
	}
	return chosen, chosen != nil && len(want) == 0
}

// splitURLs splits comma-separated base URLs, without trailing slashes.
func splitURLs(list string) []string {
	var urls []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

// runScenarios runs each chosen scenario, then prints the table of
// verdicts; it returns exit 1 when one failed or could not run.
func runScenarios(ctx context.Context, sc *lessons.ScenarioRun, chosen []lessons.Scenario, stdout io.Writer) int {
	code := load.ExitOK
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tVERDICT\tOBSERVED")
	for _, s := range chosen {
		verdict, observed := lessons.RunOne(ctx, sc, s, stdout)
		if verdict == catalogue.VerdictFail || verdict == catalogue.VerdictError {
			code = load.ExitFail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, verdict, observed)
	}
	fmt.Fprintln(stdout)
	tw.Flush()
	return code
}
