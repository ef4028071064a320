package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// startSh starts `sh -c script` under sup as name.
func startSh(t *testing.T, sup *supervisor, name, script string) *child {
	t.Helper()
	c, err := sup.start(name, "-", "/bin/sh", []string{"-c", script}, os.Environ(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !c.exited() {
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// A child that dies is reported on stderr at once, with how it ended, and
// nothing restarts it; when every child is gone, run says so.
func TestSupervisorReportsDeaths(t *testing.T) {
	var stdout, stderr syncBuf
	sup := newSupervisor(&stdout, &stderr)
	failed := startSh(t, sup, "one", "exit 3")
	killed := startSh(t, sup, "two", "sleep 0.2; kill -9 $$")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if sup.run(ctx) {
		t.Fatal("run returned for ctx, want: every child exited")
	}
	for _, want := range []string{
		fmt.Sprintf("one (pid %d) exited: exit status 3", failed.pid()),
		fmt.Sprintf("two (pid %d) exited: signal: killed", killed.pid()),
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", stderr.String(), want)
		}
	}
	if len(sup.children) != 2 {
		t.Fatalf("%d children after the deaths: something was restarted", len(sup.children))
	}
	if code := sup.stop(1); code != 1 || strings.Contains(stdout.String(), "stopping") {
		t.Fatalf("stop with nothing running: code %d, stdout %q", code, stdout.String())
	}
}

// stop: SIGTERM first; a child that ignores it is SIGKILLed at the bound.
// Exits during the stop are reported as stops on stdout, not as deaths.
func TestSupervisorStopEscalates(t *testing.T) {
	var stdout, stderr syncBuf
	sup := newSupervisor(&stdout, &stderr)
	sup.stopAfter = 500 * time.Millisecond
	polite := startSh(t, sup, "polite", "exec sleep 30")
	stubborn := startSh(t, sup, "stubborn", `trap "" TERM; exec sleep 30`)
	// The signal must come after the trap: wait until the kernel lists
	// SIGTERM (bit 15, mask 0x4000) as ignored by the child.
	testenv.WaitFor(t, 30*time.Second, "the stubborn child to ignore SIGTERM", func() bool {
		return ignoresSIGTERM(stubborn.pid())
	})
	start := time.Now()
	if code := sup.stop(0); code != 0 {
		t.Fatalf("stop = %d, want 0", code)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("stop took %v with a 500ms bound", took)
	}
	if !polite.exited() || !stubborn.exited() {
		t.Fatal("a child is still running after stop")
	}
	out := stdout.String()
	if !strings.Contains(out, "polite") || !strings.Contains(out, "stopped (signal: terminated)") {
		t.Errorf("polite child's stop not reported: %q", out)
	}
	if !strings.Contains(out, "stubborn") || !strings.Contains(out, "did not stop within 500ms: killed") {
		t.Errorf("stubborn child's SIGKILL not reported: %q", out)
	}
	time.Sleep(50 * time.Millisecond) // the watchers' last words, if any
	if strings.Contains(stderr.String(), "exited:") {
		t.Errorf("stops reported as deaths: %q", stderr.String())
	}
}

// ignoresSIGTERM reads SigIgn from /proc/PID/status.
func ignoresSIGTERM(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&(1<<(15-1)) != 0
		}
	}
	return false
}
