package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A placeholder or short admin token or ticket secret is refused beyond
// loopback, with a message naming the variable; the loopback demo keeps
// its short tokens, and unset stays as it was.
func TestRefuseWeakSecrets(t *testing.T) {
	const good = "9f86d081884c7d659a2feaa0c55ad015"
	cases := []struct {
		addr, token, ticket string
		refused             []string // the variables the message must name; none: accepted
	}{
		{"0.0.0.0:8080", "change-me", "change-me-too", []string{config.EnvAdminToken, config.EnvTicketSecret}},
		{"0.0.0.0:8080", good, "change-me-too", []string{config.EnvTicketSecret}},
		{"[::]:8080", "CHANGEME", good, []string{config.EnvAdminToken}},
		{":8080", "s3cret", "", []string{config.EnvAdminToken}},
		{"10.1.2.3:8080", good, "short", []string{config.EnvTicketSecret}},
		{"0.0.0.0:8080", good, good, nil},
		{"0.0.0.0:8080", good, "", nil}, // unset ticket secret: the database's random one
		{"127.0.0.1:8080", "tok", "change-me-too", nil},
		{"127.0.0.2:8080", "change-me", "", nil},
		{"[::1]:8080", "s3cret", "", nil},
		{"localhost:8080", "test", "test", nil},
	}
	for _, tc := range cases {
		var stderr bytes.Buffer
		got := refuseWeakSecrets(serveConfig{HTTPAddr: tc.addr, AdminToken: tc.token, TicketSecret: tc.ticket}, &stderr)
		if got != (len(tc.refused) > 0) {
			t.Errorf("%s token %q ticket %q: refused %v, want %v (%s)", tc.addr, tc.token, tc.ticket, got, !got, stderr.String())
			continue
		}
		for _, name := range tc.refused {
			if !strings.Contains(stderr.String(), name) || !strings.Contains(stderr.String(), "openssl rand") {
				t.Errorf("%s: message %q does not name %s and how to make one", tc.addr, stderr.String(), name)
			}
		}
	}
}

// The real binary, as a container starts it: SECKILL_ADMIN_TOKEN set to
// the manifests' old placeholder on a wildcard address exits non-zero
// before touching the database (the DSN points nowhere), naming the
// variable; `shop demo` beyond loopback does the same for the ticket
// secret.
func TestBinaryRefusesPlaceholderSecret(t *testing.T) {
	bin := testenv.Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
	for _, tc := range []struct {
		args []string
		env  []string
		name string
	}{
		{[]string{"serve"}, []string{config.EnvAdminToken + "=change-me"}, config.EnvAdminToken},
		{[]string{"serve"}, []string{config.EnvAdminToken + "=9f86d081884c7d659a2feaa0c55ad015",
			config.EnvTicketSecret + "=change-me-too"}, config.EnvTicketSecret},
		{[]string{"demo", "-agents", "0"}, []string{config.EnvHTTPAddr + "=0.0.0.0:18990",
			config.EnvAdminToken + "=9f86d081884c7d659a2feaa0c55ad015", config.EnvTicketSecret + "=Secret"}, config.EnvTicketSecret},
	} {
		cmd := exec.CommandContext(context.Background(), bin, tc.args...)
		cmd.Env = append(os.Environ(), config.EnvHTTPAddr+"=0.0.0.0:0", config.EnvMySQLDSN+"=x@tcp(127.0.0.1:1)/x",
			config.EnvTicketSecret+"=", config.EnvFaults+"=")
		cmd.Env = append(cmd.Env, tc.env...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("%v %v: %v, want a non-zero exit; output:\n%s", tc.args, tc.env, err, out)
			continue
		}
		if !strings.Contains(string(out), tc.name) || !strings.Contains(string(out), "placeholder") {
			t.Errorf("%v %v: output does not name %s as a placeholder:\n%s", tc.args, tc.env, tc.name, out)
		}
	}
}
