package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// slowBodyServer serves e's API over the replica's http.Server with its
// read bound made short, so that a body trickled past it meets the bound
// soon. The header bound stays generous: headers that come late on a busy
// machine still reach the handler, whose body read then fails at once.
func slowBodyServer(t *testing.T, e *env) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := HTTPServer(e.srv, slog.New(slog.NewTextHandler(e.logs, nil)))
	srv.ReadHeaderTimeout, srv.ReadTimeout = 30*time.Second, 300*time.Millisecond
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// sendPartial sends the head of a request and part of its body, then
// nothing more, and reads the answer (waiting as long as it takes the
// server's bound to end the read; the 30 s are a generous guard only).
func sendPartial(t *testing.T, addr, head, part string) (*http.Response, wire.Body) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "%s\r\n%s", head, part); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a body cut short: %v", err)
	}
	defer resp.Body.Close()
	var b wire.Body
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatalf("%d without a JSON body: %v", resp.StatusCode, err)
	}
	return resp, b
}

// A body that is still arriving when the server's read bound ends is a 408
// body_timeout (the client was too slow), not a 400 about its JSON, on
// every endpoint that reads one, declared length or chunked, cut inside
// the object or after it; nothing is written.
func TestSlowBodyIs408(t *testing.T) {
	e := newEnv(t)
	addr := slowBodyServer(t, e)
	v := e.createSale(t, `{"strategy":"mutex","stock":5}`)
	// The sales table is shared with other tests: ours carry this name.
	name := fmt.Sprintf("slow-body-%08x", rand.Uint32())
	for _, c := range []struct{ name, head, part string }{
		{"sale, declared length", "POST /api/sales HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n",
			`{"name":"` + name + `","strategy":"mutex",`},
		{"sale, before the first byte", "POST /api/sales HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n", ``},
		{"sale, after the object", "POST /api/sales HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n",
			`{"name":"` + name + `","strategy":"mutex","stock":1} `},
		{"sale, chunked", "POST /api/sales HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n",
			"5\r\n{\"nam\r\n"},
		{"order", fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n", ordersPath(v.ID)),
			`{"user_id":"al`},
		{"heartbeat", "POST /api/agents/heartbeat HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n", `{"agent_id":`},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, b := sendPartial(t, addr, c.head, c.part)
			if resp.StatusCode != http.StatusRequestTimeout || b.Error != "body_timeout" || b.Message == "" {
				t.Fatalf("%d %+v, want 408 body_timeout with a message", resp.StatusCode, b)
			}
		})
	}
	var named int64
	if err := e.db.Raw("SELECT COUNT(*) FROM sales WHERE name = ?", name).Scan(&named).Error; err != nil {
		t.Fatal(err)
	}
	if named != 0 || e.countOrders(t, v.ID) != 0 {
		t.Fatalf("a request whose body never arrived wrote a row: %d sales, %d orders", named, e.countOrders(t, v.ID))
	}
	// A body cut short by the client (it closed its side) is still malformed.
	wantError(t, e.post("/api/sales", `{"strategy":"mutex",`), http.StatusBadRequest, "invalid_json", "")
}
