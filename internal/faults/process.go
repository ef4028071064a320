//go:build unix

package faults

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// letResponseOut is how long a signal waits after the fault was accepted, so
// that the 202 leaves the process before it stops.
const letResponseOut = 100 * time.Millisecond

// StopProcess pauses this replica for d (SIGSTOP, then SIGCONT): the honest
// GC-pause, where every goroutine stops, lock watchdogs included. It returns
// at once; the stop comes about 100 ms later.
func (s *Service) StopProcess(d time.Duration) (pid int, err error) {
	if err := s.check(d); err != nil {
		return 0, err
	}
	pid = os.Getpid()
	cmd, err := StopPID(pid, d)
	if err != nil {
		return 0, err
	}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); _ = cmd.Wait() }() // reaps the helper once it resumed us
	return pid, nil
}

// StopPID starts a detached helper that SIGSTOPs pid about 100 ms from now
// and SIGCONTs it d later. A stopped process cannot resume itself, hence the
// helper: a shell in a session of its own, so that a signal to our process
// group (a terminal's Ctrl-C) does not kill it while we are stopped. The
// caller must Wait for the returned command (it ends after the SIGCONT).
func StopPID(pid int, d time.Duration) (*exec.Cmd, error) {
	secs := strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
	pause := strconv.FormatFloat(letResponseOut.Seconds(), 'f', 3, 64)
	// $0 is the first argument after the script: the pid; $1 the pause; $2 the stop.
	cmd := exec.Command("sh", "-c", `sleep "$1"; kill -STOP "$0"; sleep "$2"; kill -CONT "$0"`,
		strconv.Itoa(pid), pause, secs)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("faults: stop_process: start the helper: %w", err)
	}
	return cmd, nil
}

// KillProcess SIGKILLs this replica d from now: a crash with whatever locks
// it holds at that moment, no deferred unlock, no graceful shutdown. The
// delay lets the 202 out, and lets a caller arrange for a lock to be held
// then (pause_holder first).
func (s *Service) KillProcess(d time.Duration) (pid int, err error) {
	if err := s.check(d); err != nil {
		return 0, err
	}
	pid = os.Getpid()
	KillPIDAfter(pid, d)
	return pid, nil
}

// KillPIDAfter sends SIGKILL to pid after d, from a timer.
func KillPIDAfter(pid int, d time.Duration) *time.Timer {
	return time.AfterFunc(d, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}
