//go:build linux

package faults_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faults"
)

// sleeper is a child process to signal: the test binary itself is never
// stopped or killed.
func sleeper(t *testing.T) (*exec.Cmd, <-chan error) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, done
}

// state is the process state letter of /proc/PID/stat (T: stopped).
func state(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "?"
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return fields[0]
}

func waitState(t *testing.T, pid int, want func(string) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // generous liveness bound
	for !want(state(pid)) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never %s (state %s)", pid, what, state(pid))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop_process's helper stops the target, then resumes it, and ends.
func TestStopPID(t *testing.T) {
	cmd, _ := sleeper(t)
	pid := cmd.Process.Pid
	helper, err := faults.StopPID(pid, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, func(s string) bool { return s == "T" }, "stopped")
	waitState(t, pid, func(s string) bool { return s != "T" }, "resumed")
	if err := helper.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if s := state(pid); s != "S" && s != "R" {
		t.Fatalf("after the helper the target is in state %s, want running or sleeping", s)
	}
}

// kill_process's timer SIGKILLs the target.
func TestKillPIDAfter(t *testing.T) {
	cmd, done := sleeper(t)
	faults.KillPIDAfter(cmd.Process.Pid, 50*time.Millisecond)
	select {
	case err := <-done:
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("the child ended with %v, want killed by SIGKILL", err)
		}
	case <-time.After(10 * time.Second): // generous liveness bound
		t.Fatal("the child was not killed")
	}
}

// The Service's own stop/kill validate and refuse when disabled; they are
// not run here (they signal the test binary).
func TestProcessFaultsValidate(t *testing.T) {
	on := faults.New(faults.Config{Enabled: true}, nil)
	for _, d := range []time.Duration{0, faults.MaxDuration + time.Millisecond} {
		if _, err := on.StopProcess(d); err == nil {
			t.Errorf("stop %v accepted", d)
		}
		if _, err := on.KillProcess(d); err == nil {
			t.Errorf("kill %v accepted", d)
		}
	}
	off := faults.New(faults.Config{}, nil)
	if _, err := off.StopProcess(time.Second); err == nil {
		t.Error("disabled stop accepted")
	}
	if _, err := off.KillProcess(time.Second); err == nil {
		t.Error("disabled kill accepted")
	}
}
