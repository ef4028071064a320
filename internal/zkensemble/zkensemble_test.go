package zkensemble

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The kill lock excludes a second taker (another open file: another
// process, or another fault in this one) until the first lets go.
func TestLockExcludesASecondKiller(t *testing.T) {
	e := Ensemble{Dir: t.TempDir()}
	unlock, err := e.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := e.Lock(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Lock while held: %v, want ErrBusy", err)
	}
	unlock()
	again, err := e.Lock(context.Background())
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	again()
}

// Kill never kills what is not the ensemble's ZooKeeper: an address that
// is not a member, and a pid file naming another program (a stale pid the
// system gave to something else), which is left running.
func TestKillRefusesWhatIsNotItsServer(t *testing.T) {
	e := Ensemble{Servers: []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, Dir: t.TempDir()}
	if _, err := e.Kill("127.0.0.1:9"); !errors.Is(err, ErrNotMember) {
		t.Errorf("not a member: %v, want ErrNotMember", err)
	}
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	if err := os.MkdirAll(filepath.Dir(e.PidFile(2)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.PidFile(2), []byte(strconv.Itoa(sleep.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := e.Kill("127.0.0.1:2")
	if err == nil || !strings.Contains(err.Error(), "is not its ZooKeeper") {
		t.Errorf("a pid file naming sleep: %v, want a refusal", err)
	}
	if !alive(sleep.Process.Pid) {
		t.Error("Kill killed a process that is not the server")
	}
}

// A server that does not answer srvr with a mode is not whole.
func TestModeOfANonServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			_, _ = c.Write([]byte("This ZooKeeper instance is not currently serving requests\n"))
			c.Close()
		}
	}()
	defer l.Close()
	if m, err := Mode(context.Background(), l.Addr().String()); err == nil {
		t.Errorf("mode %q from a server without a quorum, want an error", m)
	}
}
