package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// cannedSoldOut is the shop's answer to an order on a sold-out sale.
const cannedSoldOut = "HTTP/1.1 409 Conflict\r\nContent-Type: application/json; charset=utf-8\r\n" +
	"Seckill-Layer: sold_out_cache\r\nContent-Length: 53\r\n\r\n" +
	`{"error":"sold_out","message":"the sale is sold out"}`

// startCannedServer answers every HTTP/1.1 request on its kept-alive
// connections with the same bytes: a server that costs next to nothing, so
// that a benchmark against it measures the client. It returns the base URL.
func startCannedServer(tb testing.TB, answer string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveCanned(conn, []byte(answer))
		}
	}()
	return "http://" + ln.Addr().String()
}

// serveCanned reads requests (headers, then Content-Length bytes of body)
// and writes the answer to each.
func serveCanned(conn net.Conn, answer []byte) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		length := 0
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
				length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		if _, err := r.Discard(length); err != nil {
			return
		}
		if _, err := conn.Write(answer); err != nil {
			return
		}
	}
}

// BenchmarkOrderEngine is the load engine's own cost per order request:
// drive with 8 workers, each request a POST to a canned server answering
// sold_out (not httptest's server: its own allocations per request would
// count in allocs/op). "fasthttp" is the engine of run and the agents;
// "net-http" is the client the scenarios use, kept for comparison.
func BenchmarkOrderEngine(b *testing.B) {
	base := startCannedServer(b, cannedSoldOut)
	url := base + "/api/sales/1/orders"
	b.Run("fasthttp", func(b *testing.B) {
		s, err := shopapi.NewOrderSender([]string{url}, 8, 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchDrive(b, func(_ context.Context, i int) shopapi.Answer { return s.Order(0, "lt-", i+1, "") })
	})
	b.Run("net-http", func(b *testing.B) {
		c := shopapi.NewClient(8, 10*time.Second, "")
		defer c.Close()
		benchDrive(b, func(ctx context.Context, i int) shopapi.Answer {
			return shopapi.Answer{Kind: c.Order(ctx, url, "lt-"+strconv.Itoa(i+1)), Layer: "sold_out_cache"}
		})
	})
}

func benchDrive(b *testing.B, do load.Attempt) {
	rec := load.NewRecorder()
	b.ReportAllocs()
	b.ResetTimer()
	load.Drive(context.Background(), load.Plan{Requests: b.N, Workers: 8}, do, rec)
	b.StopTimer()
	f := rec.Figures()
	if f.All.Kinds[shopapi.KindSoldOut] != int64(b.N) || f.All.Layers["sold_out_cache"] != int64(b.N) {
		b.Fatalf("answers %v by layer %v, want %d sold_out from sold_out_cache", f.All.Kinds, f.All.Layers, b.N)
	}
}
