package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// rate is `loadtest rate --url URL [--duration 10s] [--concurrency 64]`: the
// load tool's own ceiling. Closed-model workers GET one URL as fast as it
// answers through the engine the order load uses (shopapi.OrderSender's kept-alive
// connections), so the figure is comparable with wrk's against the same URL
// (scripts/bench.sh runs both): if the shop can answer faster than this,
// loadtest, not the shop, is what a run measures.
func rate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest rate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "URL to GET, e.g. http://127.0.0.1:8080/healthz (required)")
	duration := fs.Duration("duration", 10*time.Second, "how long to send")
	workers := fs.Int("concurrency", 64, "closed model: workers sending at once")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return load.ExitOK
		}
		return load.ExitUsage
	}
	if *url == "" || *duration <= 0 || *workers < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "loadtest rate: --url is required; --duration and --concurrency must be positive")
		fs.Usage()
		return load.ExitUsage
	}
	s, err := shopapi.NewOrderSender([]string{*url}, *workers, 10*time.Second)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest rate: --url: %v\n", err)
		return load.ExitUsage
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()

	var ok, bad atomic.Int64
	var mu sync.Mutex
	hist := hdrhistogram.New(load.HistMinUS, load.HistMaxUS, load.HistSigFigs)
	var wg sync.WaitGroup
	start := time.Now()
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := hdrhistogram.New(load.HistMinUS, load.HistMaxUS, load.HistSigFigs)
			for ctx.Err() == nil {
				t0 := time.Now()
				if s.Get(0, *url) {
					ok.Add(1)
					_ = local.RecordValue(min(max(time.Since(t0).Microseconds(), load.HistMinUS), load.HistMaxUS))
				} else if ctx.Err() == nil {
					bad.Add(1)
				}
			}
			mu.Lock()
			hist.Merge(local)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	fmt.Fprintf(stdout, "loadtest rate: %d ok, %d errors in %.2f s over %d connections: %.0f req/s; latency ms p50 %.2f p99 %.2f max %.2f\n",
		ok.Load(), bad.Load(), elapsed, *workers, float64(ok.Load())/elapsed,
		ms(hist.ValueAtQuantile(50)), ms(hist.ValueAtQuantile(99)), ms(hist.Max()))
	if ok.Load() == 0 {
		return load.ExitFail
	}
	return load.ExitOK
}
