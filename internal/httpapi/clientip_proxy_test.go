package httpapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// clientFrom is an HTTP client whose connections leave from ip (an address
// of 127.0.0.0/8: Linux's loopback answers all of them), so that a proxy or
// the shop sees each test client as its own machine.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// getStatus sends GET url with the headers ("Name", "value" pairs) and
// returns the status.
func getStatus(t *testing.T, c *http.Client, url string, header ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// untilLimited sends GET url from c until the shop answers 429, and fails
// the test if it never does within 1,000 requests.
func untilLimited(t *testing.T, c *http.Client, url string, header ...string) {
	t.Helper()
	for range 1000 {
		switch code := getStatus(t, c, url, header...); code {
		case http.StatusTooManyRequests:
			return
		case http.StatusForbidden: // order_token_required: answered, and counted
		default:
			t.Fatalf("GET %s: %d, want 403 until the budget is spent, then 429", url, code)
		}
	}
	t.Fatalf("1000 requests at 2/s never refused: the budget is not per client")
}

// Behind a real reverse proxy (httputil's, which appends the peer to
// X-Forwarded-For, as the Ingress does) two shoppers have a budget each:
// A spending its order-route budget, even while claiming B's address in a
// header of its own, does not make B's request 429. A direct client's
// X-Forwarded-For is ignored: spoofing fresh addresses, it is still
// limited as itself.
func TestClientsBehindProxyLimitedApart(t *testing.T) {
	const proxyIP, clientA, clientB, direct = "127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"
	trusted, err := NewClientIPs(proxyIP, HeaderXForwardedFor) // the proxy only, not its clients
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withGuards, withOrderRate(2), withClientIPs(trusted))
	shop := httptest.NewServer(e.srv) // on 127.0.0.1: the proxy reaches it from there
	t.Cleanup(shop.Close)
	target, _ := url.Parse(shop.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)

	const path = "/api/orders/1"
	a, b := clientFrom(t, clientA), clientFrom(t, clientB)
	untilLimited(t, a, proxy.URL+path, "X-Forwarded-For", clientB) // A, claiming to be B
	if code := getStatus(t, b, proxy.URL+path); code != http.StatusForbidden {
		t.Fatalf("B through the proxy after A spent its budget: %d, want 403 order_token_required (B has its own)", code)
	}
	if code := getStatus(t, a, proxy.URL+path); code != http.StatusTooManyRequests {
		t.Fatalf("A again: %d, want 429 (its budget is spent)", code)
	}

	// Straight to the shop, from an address it does not trust: each request
	// names another client (B, or a fresh address), and all of them count
	// as this one peer.
	d := clientFrom(t, direct)
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("a direct client spoofing X-Forwarded-For was never limited")
		}
		spoofed := clientB // B's own address, and others
		if i%2 == 1 {
			spoofed = net.IPv4(198, 51, byte(i>>8), byte(i)).String()
		}
		code := getStatus(t, d, shop.URL+path, "X-Forwarded-For", spoofed, "Forwarded", "for="+spoofed)
		if code == http.StatusTooManyRequests {
			break
		}
		if code != http.StatusForbidden {
			t.Fatalf("direct request %d: %d", i, code)
		}
	}
	// The addresses it named were never charged: B, whom it named half the
	// time, still has a budget.
	if code := getStatus(t, b, proxy.URL+path); code != http.StatusForbidden {
		t.Fatalf("B after the direct client's spoofing: %d, want 403", code)
	}
}
