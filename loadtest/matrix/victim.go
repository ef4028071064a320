package matrix

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
)

// victim is a shop replica the matrix starts itself for a fault that kills
// its process (kill_process): a demo's replica that dies is not started
// again, and the cells after it need every replica back. It runs over the
// same database and backends as the demo (the environment's, as make
// matrix passes them), with faults on.
type victim struct {
	url  string
	cmd  *exec.Cmd
	died chan struct{} // closed when the process has exited
}

// shopBinary is the shop binary beside the loadtest binary (bin/), or "".
func shopBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(exe), "shop")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// startVictim starts shop serve on a free port and waits until it
// answers /healthz.
func startVictim(ctx context.Context, shop, logPath string) (*victim, error) {
	if shop == "" {
		return nil, errors.New("no shop binary: give --shop (make build puts one in bin/)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(shop, "serve", "-http-addr", addr, "-replica-id", "matrix-victim")
	cmd.Env = append(os.Environ(), config.EnvFaults+"=on")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s serve: %w", shop, err)
	}
	v := &victim{url: "http://" + addr, cmd: cmd, died: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(v.died) }()
	if err := waitHealthy(ctx, []string{v.url}); err != nil {
		v.stop()
		return nil, fmt.Errorf("the replica the matrix started: %w (log %s)", err, logPath)
	}
	return v, nil
}

// dead says the victim's process has exited.
func (v *victim) dead() bool {
	select {
	case <-v.died:
		return true
	default:
		return false
	}
}

// awaitDeath waits (10 s at most) for the victim's process to exit, and
// says whether it has.
func (v *victim) awaitDeath(ctx context.Context) bool {
	select {
	case <-v.died:
		return true
	case <-time.After(10 * time.Second):
	case <-ctx.Done():
	}
	return v.dead()
}

// stop kills the victim if it still runs (a cell that failed before its
// kill).
func (v *victim) stop() {
	if v.cmd.Process != nil {
		_ = v.cmd.Process.Kill()
	}
}
