package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/internal/fakeshop"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// TestUsageErrors: every usage error exits 2 before a sale is created, with
// one line naming the flag, then the usage.
func TestUsageErrors(t *testing.T) {
	f := &fakeshop.Shop{Strategies: fakeStrategies, Answer: fakeshop.SoldAfter(1)}
	target := fakeshop.Start(t, f)
	tests := []struct {
		name  string
		args  []string
		names string // the message must contain this
	}{
		{"unknown flag", []string{"--targets", target, "--bogus"}, "-bogus"},
		{"stock 0", []string{"--targets", target, "--stock", "0"}, "--stock"},
		{"stock not a number", []string{"--targets", target, "--stock", "many"}, "-stock"},
		{"rate with concurrency", []string{"--targets", target, "--rate", "10", "--concurrency", "5"}, "--concurrency"},
		{"rate not positive", []string{"--targets", target, "--rate", "0"}, "--rate"},
		{"no targets", []string{"--strategy", "fake-safe"}, "--targets"},
		{"bad target", []string{"--targets", "127.0.0.1:8080"}, "--targets"},
		{"unknown strategy", []string{"--targets", target, "--strategy", "nope"}, `unknown strategy "nope"`},
		{"buyers 0", []string{"--targets", target, "--buyers", "0"}, "--buyers"},
		{"max error rate over 100%", []string{"--targets", target, "--max-error-rate", "150%"}, "-max-error-rate"},
		{"max-in-flight without rate", []string{"--targets", target, "--max-in-flight", "5"}, "--max-in-flight"},
		{"positional argument", []string{"--targets", target, "extra"}, `"extra"`},
		{"opens-in over an hour", []string{"--targets", target, "--opens-in", "2h"}, "--opens-in"},
		{"opens-in negative", []string{"--targets", target, "--opens-in", "-1s"}, "--opens-in"},
		{"max-in-flight with a closed herd", []string{"--targets", target, "--opens-in", "1s", "--concurrency", "4",
			"--max-in-flight", "5"}, "--max-in-flight"},
		{"rate-limit-user negative", []string{"--targets", target, "--rate-limit-user", "-1"}, "--rate-limit-user"},
		{"rate-limit-ip too high", []string{"--targets", target, "--rate-limit-ip", "100001"}, "--rate-limit-ip"},
		{"order-mode unknown", []string{"--targets", target, "--strategy", "fake-safe", "--order-mode", "later"}, "--order-mode"},
		{"order-mode async on all", []string{"--targets", target, "--order-mode", "async"}, "--order-mode"},
		{"pay-within-ms too short", []string{"--targets", target, "--strategy", "fake-safe", "--pay-within-ms", "100"}, "--pay-within-ms"},
		{"drain-timeout zero", []string{"--targets", target, "--strategy", "fake-safe", "--drain-timeout", "0s"}, "--drain-timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTool(t, tc.args...)
			if code != load.ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, load.ExitUsage, stdout, stderr)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if !strings.Contains(first, tc.names) {
				t.Errorf("first line %q does not name %s", first, tc.names)
			}
			if tc.name != "unknown strategy" && !strings.Contains(stderr, "usage: loadtest run") {
				t.Errorf("no usage after the message:\n%s", stderr)
			}
		})
	}
	if sales, _ := f.Counts(); sales != 0 || f.Orders() != 0 {
		t.Errorf("a usage error created %d sales and sent %d orders", sales, f.Orders())
	}
}

// TestDispatch: the subcommand table, help and unknown commands.
func TestDispatch(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{nil, load.ExitUsage},
		{[]string{"bogus"}, load.ExitUsage},
		{[]string{"help"}, load.ExitOK},
		{[]string{"run", "-h"}, load.ExitOK},
		{[]string{"run"}, load.ExitUsage}, // no --targets
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := dispatch(context.Background(), tc.args, &stdout, &stderr); code != tc.code {
			t.Errorf("loadtest %v: exit %d, want %d\n%s%s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
	}
}

// TestRatioFlag: --max-error-rate takes a fraction or a percentage.
func TestRatioFlag(t *testing.T) {
	for in, want := range map[string]float64{"0.01": 0.01, "1%": 0.01, "0": 0, "100%": 1, " 2.5% ": 0.025} {
		var r ratioFlag
		if err := r.Set(in); err != nil || float64(r) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, float64(r), err, want)
		}
	}
	for _, in := range []string{"5", "-1%", "abc", "", "NaN"} {
		var r ratioFlag
		if err := r.Set(in); err == nil {
			t.Errorf("Set(%q) accepted %v", in, float64(r))
		}
	}
}

// TestRateTimesDuration: with --rate and --duration and no --buyers, the
// buyers are what the rate sends in that time.
func TestRateTimesDuration(t *testing.T) {
	var stderr bytes.Buffer
	c, err := parseRunFlags([]string{"--targets", "http://127.0.0.1:1", "--rate", "250", "--duration", "2s"}, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if c.Buyers != 500 || c.Model() != "open" || c.Plan().Workers != c.MaxInFlight {
		t.Errorf("buyers %d model %s workers %d; want 500, open, max-in-flight", c.Buyers, c.Model(), c.Plan().Workers)
	}
}

// TestNoWatchdogFlag: --no-watchdog sends watchdog:false for the strategies
// whose lease renews itself and nothing for the others, and without the flag
// the sale request carries no "watchdog" member at all (older shops refuse
// members they do not know).
func TestNoWatchdogFlag(t *testing.T) {
	renewing := shopapi.StrategyInfo{Name: "redis", Safe: true, Renews: true, Available: true}
	plain := shopapi.StrategyInfo{Name: "db-pessimistic", Safe: true, Available: true}
	tests := []struct {
		name    string
		args    []string
		st      shopapi.StrategyInfo
		wantOff bool // watchdog:false sent; else no member
	}{
		{"default, renewing", nil, renewing, false},
		{"default, no watchdog to turn off", nil, plain, false},
		{"flag, renewing", []string{"--no-watchdog"}, renewing, true},
		{"flag, no watchdog to turn off", []string{"--no-watchdog"}, plain, false},
		{"flag=false", []string{"--no-watchdog=false"}, renewing, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			c, err := parseRunFlags(append([]string{"--targets", "http://127.0.0.1:1"}, tc.args...), &stderr)
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			body, err := json.Marshal(saleRequestFor(c, tc.st))
			if err != nil {
				t.Fatal(err)
			}
			var sent map[string]any
			if err := json.Unmarshal(body, &sent); err != nil {
				t.Fatal(err)
			}
			w, present := sent["watchdog"]
			if present != tc.wantOff || (present && w != false) {
				t.Errorf("sale request %s: want watchdog:false sent = %v", body, tc.wantOff)
			}
		})
	}
}

// --no-queue reaches redlock's sale only (no_queue: true); other strategies,
// and runs without the flag, send no member (an older shop refuses it).
func TestNoQueueFlag(t *testing.T) {
	redlock := shopapi.StrategyInfo{Name: "redlock", Safe: true, Renews: true, Available: true}
	redis := shopapi.StrategyInfo{Name: "redis", Safe: true, Renews: true, Available: true}
	for _, tc := range []struct {
		name   string
		args   []string
		st     shopapi.StrategyInfo
		wantOn bool
	}{
		{"default, redlock", nil, redlock, false},
		{"flag, redlock", []string{"--no-queue"}, redlock, true},
		{"flag, redis", []string{"--no-queue"}, redis, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			c, err := parseRunFlags(append([]string{"--targets", "http://127.0.0.1:1"}, tc.args...), &stderr)
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			body, err := json.Marshal(saleRequestFor(c, tc.st))
			if err != nil {
				t.Fatal(err)
			}
			var sent map[string]any
			if err := json.Unmarshal(body, &sent); err != nil {
				t.Fatal(err)
			}
			if v, present := sent["no_queue"]; present != tc.wantOn || (present && v != true) {
				t.Errorf("sale request %s: want no_queue:true sent = %v", body, tc.wantOn)
			}
		})
	}
}
