package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// shutdownTimeout bounds the graceful shutdown: long enough for in-flight
// orders (lock wait 10 s + work) to finish and unlock.
const shutdownTimeout = 30 * time.Second

// serveOptions are the outputs of serve and, for tests, its seams.
type serveOptions struct {
	stdout, stderr io.Writer
	ready          func(addr string)               // called once listening
	wrap           func(http.Handler) http.Handler // wraps the API handler
}

// serve runs one replica until ctx is done, then shuts down gracefully
// (replica.close lists the steps). It returns the exit code.
func serve(ctx context.Context, cfg serveConfig, o serveOptions) int {
	log := slog.New(slog.NewJSONHandler(o.stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if refuseBeyondLoopback(cfg, o.stderr) || refuseWeakSecrets(cfg, o.stderr) {
		return 2
	}
	r := &replica{cfg: cfg, opts: o, log: log}
	if err := r.open(ctx); err != nil {
		fmt.Fprintf(o.stderr, "shop: %v\n", err)
		r.close()
		return 1
	}
	log.Info("serving", "addr", r.addr(), "replica", r.cfg.ReplicaID, "url", r.member.URL, "strategies", available(r.backends),
		"admin_token", cfg.AdminToken != "", "faults", r.faults.Enabled(),
		"trusted_proxies", cfg.ClientIPs.Trusted())
	if o.ready != nil {
		o.ready(r.addr())
	}
	stopped := r.wait(ctx)
	code := 0
	if err := errors.Join(stopped, r.close()); errors.Is(err, errShutdownIncomplete) {
		code = 1
	}
	if stopped == nil { // the server stopped on its own: it has said so
		log.Info("stopped", "code", code)
	}
	return code
}

// available lists the strategies these backends can run, for the start log.
func available(b lockstrategy.Backends) []string {
	var out []string
	for _, s := range lockstrategy.All() {
		if s.Available(b) == nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// dashboardURL is the URL to open for a listener: a wildcard host becomes
// 127.0.0.1, which a browser on this machine can reach.
func dashboardURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// refuseBeyondLoopback reports (and explains on stderr) a listen address
// beyond loopback without an admin token: anyone who can reach the port
// could otherwise create sales.
func refuseBeyondLoopback(cfg serveConfig, stderr io.Writer) bool {
	if loopbackOnly(cfg.HTTPAddr) || cfg.AdminToken != "" {
		return false
	}
	fmt.Fprintf(stderr, "shop: refusing to listen on %s, beyond loopback, without %s: anyone who can reach\n"+
		"the port could create sales. Set %s=<secret> (clients then send \"Authorization: Bearer <secret>\"),\n"+
		"or listen on 127.0.0.1.\n", cfg.HTTPAddr, config.EnvAdminToken, config.EnvAdminToken)
	return true
}

// refuseWeakSecrets reports (and explains on stderr) an admin token or a
// ticket secret that is a known placeholder or too short, on a listen
// address beyond loopback: the manifests' placeholders would let anyone
// create sales, or compute any order's order_token. The loopback demo and
// the tests keep their short tokens; unset is refuseBeyondLoopback's (the
// token) or fine (the ticket secret: a random one from the database).
func refuseWeakSecrets(cfg serveConfig, stderr io.Writer) bool {
	if loopbackOnly(cfg.HTTPAddr) {
		return false
	}
	refused := false
	for _, s := range []struct{ name, value string }{
		{config.EnvAdminToken, cfg.AdminToken}, {config.EnvTicketSecret, cfg.TicketSecret}} {
		if err := config.CheckSecret(s.name, s.value); err != nil {
			fmt.Fprintf(stderr, "shop: refusing to start on %s, beyond loopback: %v\n", cfg.HTTPAddr, err)
			refused = true
		}
	}
	return refused
}

// advertiseURL is the URL other replicas, agents and the dashboard reach
// this replica at. A wildcard listener (0.0.0.0:8080 in a container) is
// announced under the hostname, which the other containers of a compose
// project resolve (compose sets hostname: to the service name).
func advertiseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "127.0.0.1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}
