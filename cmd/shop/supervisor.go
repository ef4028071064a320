package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// child is one process the demo started.
type child struct {
	name string
	url  string // a replica's own URL; an agent's shop
	log  string // where its stdout and stderr go
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited and err is set
	err  error         // what cmd.Wait returned
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exitText says how a child ended, the way exec reports it ("exit status
// 1", "signal: killed").
func (c *child) exitText() string {
	if c.err == nil {
		return "exit status 0"
	}
	return c.err.Error()
}

// maxChildren bounds the exits channel; parseDemo allows 64 + 64.
const maxChildren = 128

// supervisor starts the demo's children, reports each one's state, and stops
// them. It never restarts one: a dead replica is part of what the demo shows.
type supervisor struct {
	stdout, stderr io.Writer
	outMu          sync.Mutex // whole lines from concurrent reporters
	children       []*child
	stopping       atomic.Bool
	exits          chan *child
	client         *http.Client
	stopAfter      time.Duration // SIGKILL bound of stop; stopTimeout
}

func newSupervisor(stdout, stderr io.Writer) *supervisor {
	return &supervisor{stdout: stdout, stderr: stderr, exits: make(chan *child, maxChildren),
		client: &http.Client{Timeout: time.Second}, stopAfter: stopTimeout}
}

func (s *supervisor) say(w io.Writer, format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(w, format+"\n", args...)
}

// status prints the one-line status of c.
func (s *supervisor) status(c *child, state string) {
	s.say(s.stdout, "%-9s pid %-7d %-26s %s", c.name, c.pid(), c.url, state)
}

// start runs bin with args and env, its output truncated into
// logDir/<name>.log, and watches it: an exit before the demo stops is
// reported on stderr at once.
func (s *supervisor) start(name, url, bin string, args, env []string, logDir string) (*child, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own descriptor once started
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = childSysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{name: name, url: url, log: logPath, cmd: cmd, done: make(chan struct{})}
	s.children = append(s.children, c)
	go func() {
		c.err = cmd.Wait()
		close(c.done)
		if !s.stopping.Load() {
			s.say(s.stderr, "%s (pid %d) exited: %s; log %s", c.name, c.pid(), c.exitText(), c.log)
		}
		s.exits <- c
	}()
	return c, nil
}

// waitUp polls c's /healthz until it answers 200, c exits, ctx is done or
// timeout passes, prints c's status line, and reports whether it is up.
func (s *supervisor) waitUp(ctx context.Context, c *child, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if s.healthy(ctx, c.url) {
			s.status(c, "up")
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-c.done:
			s.status(c, "exited before it was up ("+c.exitText()+"); see "+c.log)
			return false
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.status(c, fmt.Sprintf("not up after %v; still running, see %s", timeout, c.log))
			return false
		}
	}
}

func (s *supervisor) healthy(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// run waits until ctx is done (true) or every child has exited (false).
func (s *supervisor) run(ctx context.Context) bool {
	for {
		if s.allExited() {
			return false
		}
		select {
		case <-ctx.Done():
			return true
		case <-s.exits: // already reported by its watcher
		}
	}
}

func (s *supervisor) allExited() bool {
	for _, c := range s.children {
		if !c.exited() {
			return false
		}
	}
	return true
}

// stop sends SIGTERM to every child still running (the replicas' graceful
// path: in-flight orders finish, heartbeat rows are removed), waits at most
// s.stopAfter, SIGKILLs what is left, and returns code.
func (s *supervisor) stop(code int) int {
	s.stopping.Store(true)
	var running []*child
	for _, c := range s.children {
		if !c.exited() {
			running = append(running, c)
		}
	}
	if len(running) == 0 {
		return code
	}
	s.say(s.stdout, "stopping %s (SIGTERM; SIGKILL after %v)", plural(len(running), "process"), s.stopAfter)
	for _, c := range running {
		_ = c.cmd.Process.Signal(syscall.SIGTERM) // one that just exited is fine
	}
	deadline := time.NewTimer(s.stopAfter)
	defer deadline.Stop()
	for _, c := range running {
		select {
		case <-c.done:
			s.status(c, "stopped ("+c.exitText()+")")
			continue
		case <-deadline.C:
		}
		// Past the bound: kill the rest (the timer has fired for good).
		for _, k := range running {
			if !k.exited() {
				_ = k.cmd.Process.Kill()
			}
		}
		<-c.done
		s.status(c, fmt.Sprintf("did not stop within %v: killed", s.stopAfter))
	}
	return code
}
