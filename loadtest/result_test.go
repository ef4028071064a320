package main

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// keyPaths lists every member path of a JSON value, objects only
// ("results[].latency_ms.p99"), over every element of an array (the
// caller sorts and compacts); the sale view and the count maps are opaque.
func keyPaths(prefix string, v any, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			*out = append(*out, p)
			if !slices.Contains([]string{"results[].sale", "results[].errors", "results[].layers", "results[].herd.first_second.layers",
				"results[].queue.failed_reasons"}, p) {
				keyPaths(p, e, out)
			}
		}
	case []any:
		for _, e := range v {
			keyPaths(prefix+"[]", e, out)
		}
	}
}

// TestReportSchema pins the --json member names: scripts read them, so a
// renamed tag is a breaking change that must show here.
func TestReportSchema(t *testing.T) {
	rep := load.NewReport(load.RunConfig{Targets: []string{"http://a"}, Strategy: "all", Stock: 1, Buyers: 2, Concurrency: 3,
		TtlMS: 2000, MaxErrorRate: 0.01, Timeout: time.Second}, time.Unix(0, 0))
	r := load.NewResult(shopapi.StrategyInfo{Name: "x", Safe: true}, "closed")
	r.Measure(hdrhistogram.New(load.HistMinUS, load.HistMaxUS, load.HistSigFigs), map[string]int64{shopapi.KindOrder: 1, "conflict": 1}, time.Second)
	r.Sale = json.RawMessage(`{"id":1}`)
	r.Retries = &load.Retries{Rounds: 3, Orders: 1, PerOrder: 3}
	r.Verdict = load.VerdictOK
	rep.Results = append(rep.Results, r)
	h := load.NewResult(shopapi.StrategyInfo{Name: "herd"}, "herd")
	h.Herd = &load.Herd{OpensAt: time.Unix(0, 0)}
	h.MeasureLayers(load.NewHerdRecorder(time.Unix(0, 0)).Figures())
	rep.Results = append(rep.Results, h)
	a := load.NewResult(shopapi.StrategyInfo{Name: "async"}, "closed")
	a.Queue = &load.Queue{FailedReasons: map[string]int64{}}
	rep.Results = append(rep.Results, a)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	keyPaths("", doc, &got)
	sort.Strings(got)
	got = slices.Compact(got)
	want := []string{
		"config", "config.buyers", "config.combine", "config.concurrency", "config.duration_s", "config.fencing", "config.max_error_rate",
		"config.max_in_flight", "config.model", "config.opens_in_ms", "config.order_mode", "config.pay_within_ms",
		"config.per_user_limit", "config.rate",
		"config.rate_limit_ip", "config.rate_limit_user", "config.sold_out_cache", "config.stock", "config.strategy",
		"config.targets", "config.ticket_required", "config.timeout_s", "config.ttl_ms", "config.work_ms",
		"machine", "machine.cpus", "machine.goarch", "machine.goos",
		"results",
		"results[].accepted", "results[].duration_s", "results[].errors", "results[].hard_errors",
		"results[].herd", "results[].herd.first_second", "results[].herd.first_second.accepted", "results[].herd.first_second.latency_ms",
		"results[].herd.first_second.latency_ms.max", "results[].herd.first_second.latency_ms.p50",
		"results[].herd.first_second.latency_ms.p95", "results[].herd.first_second.latency_ms.p99",
		"results[].herd.first_second.layers", "results[].herd.first_second.orders", "results[].herd.first_second.requests",
		"results[].herd.first_second.sold_out", "results[].herd.opens_at", "results[].herd.sell_out_s", "results[].herd.shop",
		"results[].latency_ms", "results[].latency_ms.max", "results[].latency_ms.p50", "results[].latency_ms.p95",
		"results[].latency_ms.p99", "results[].layers",
		"results[].model", "results[].orders", "results[].orders_per_s",
		"results[].queue", "results[].queue.accepted_per_s", "results[].queue.confirm_p50_ms", "results[].queue.confirm_p99_ms",
		"results[].queue.confirmed", "results[].queue.confirmed_per_s", "results[].queue.drain_s", "results[].queue.drained",
		"results[].queue.drift", "results[].queue.durability", "results[].queue.failed", "results[].queue.failed_reasons",
		"results[].queue.lost", "results[].queue.mismatched", "results[].queue.tickets", "results[].queue.unsettled",
		"results[].requests", "results[].requests_per_s",
		"results[].retries", "results[].retries.orders", "results[].retries.per_order", "results[].retries.rounds",
		"results[].safe", "results[].sale", "results[].sold_out", "results[].strategy", "results[].verdict",
		"started_at",
	}
	if !slices.Equal(got, want) {
		t.Errorf("JSON members changed:\n got  %v\n want %v", got, want)
	}
	if r.Requests != 2 || r.Orders != 1 || r.Errors["conflict"] != 1 || r.HardErrors != 0 || r.RequestsPerS != 2 {
		t.Errorf("measure: %+v", r)
	}
}

// TestVerdict covers the judgement table, including the order of precedence:
// a broken safe strategy is reported as such even with errors on top.
func TestVerdict(t *testing.T) {
	tests := []struct {
		safe     bool
		v        shopapi.SaleView
		hard     int64
		requests int64
		want     string
	}{
		{true, shopapi.SaleView{}, 0, 100, load.VerdictOK},
		{true, shopapi.SaleView{Oversold: 1, Violations: 3}, 0, 100, load.VerdictOversold},
		{true, shopapi.SaleView{LostUpdates: 1}, 0, 100, load.VerdictViolations},
		{true, shopapi.SaleView{Violations: 1}, 0, 100, load.VerdictViolations},
		{true, shopapi.SaleView{Duplicates: 1}, 0, 100, load.VerdictViolations},
		{true, shopapi.SaleView{Oversold: 1}, 50, 100, load.VerdictOversold},
		{true, shopapi.SaleView{}, 1, 100, load.VerdictOK},     // 1% is not above 1%
		{true, shopapi.SaleView{}, 2, 100, load.VerdictErrors}, // 2% is
		{false, shopapi.SaleView{Oversold: 5}, 0, 100, load.VerdictExpected},
		{false, shopapi.SaleView{}, 0, 100, load.VerdictOK},
		{false, shopapi.SaleView{Oversold: 5}, 10, 100, load.VerdictErrors},
		{true, shopapi.SaleView{}, 0, 0, load.VerdictOK},
	}
	for _, tc := range tests {
		if got := load.Verdict(tc.safe, tc.v, tc.hard, tc.requests, 0.01); got != tc.want {
			t.Errorf("verdict(safe=%v, %+v, %d/%d hard) = %s, want %s", tc.safe, tc.v, tc.hard, tc.requests, got, tc.want)
		}
	}
	if !load.AllPassed([]load.Result{{Verdict: load.VerdictOK}, {Verdict: load.VerdictExpected}}) ||
		load.AllPassed([]load.Result{{Verdict: load.VerdictOK}, {Verdict: load.VerdictFailed}}) {
		t.Error("allPassed: OK and expected-unsafe pass, anything else fails")
	}
}
