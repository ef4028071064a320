package zkensemble

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Killed is a server that Kill took down, with what it takes to start it
// again exactly as it ran: its command line, environment and folder.
type Killed struct {
	Addr  string
	Index int
	e     Ensemble
	argv  []string
	env   []string
	cwd   string
}

// Kill SIGKILLs the ensemble's server at addr (by the pid file services.sh
// wrote) and returns once the process is gone. It refuses a pid whose
// command line is not that server's ZooKeeper (a stale pid file whose
// number the system gave to another process). Hold Lock first.
func (e Ensemble) Kill(addr string) (*Killed, error) {
	i, ok := e.Index(addr)
	if !ok {
		return nil, fmt.Errorf("%w: %s (servers %v)", ErrNotMember, addr, e.Servers)
	}
	raw, err := os.ReadFile(e.PidFile(i))
	if err != nil {
		return nil, fmt.Errorf("zkensemble: the pid of %s (is this the services folder that started it?): %w", addr, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("zkensemble: pid file %s: %w", e.PidFile(i), err)
	}
	k := &Killed{Addr: addr, Index: i, e: e}
	if k.argv, k.env, k.cwd, err = processOf(pid); err != nil {
		return nil, fmt.Errorf("zkensemble: %s (pid %d): %w", addr, pid, err)
	}
	cfg := filepath.Join(e.serverDir(i), "zoo.cfg")
	if !slices.Contains(k.argv, "org.apache.zookeeper.server.quorum.QuorumPeerMain") || !hasSuffix(k.argv, filepath.Base(e.serverDir(i))+"/zoo.cfg") {
		return nil, fmt.Errorf("zkensemble: pid %d of %s is not its ZooKeeper (%s): %q", pid, addr, cfg, strings.Join(k.argv, " "))
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return nil, fmt.Errorf("zkensemble: kill %s (pid %d): %w", addr, pid, err)
	}
	for deadline := time.Now().Add(10 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("zkensemble: %s (pid %d) still alive 10 s after SIGKILL", addr, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return k, nil
}

// Restart starts the killed server again with its own command line, in
// its own session (it outlives this process, as services.sh's servers
// outlive the script), appending to its log, and writes its new pid where
// services.sh looks for it (status and down find it there).
func (k *Killed) Restart() error {
	dir := k.e.serverDir(k.Index)
	logf, err := os.OpenFile(filepath.Join(dir, "zookeeper.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(k.argv[0], k.argv[1:]...)
	cmd.Env, cmd.Dir = k.env, k.cwd
	if _, err := os.Stat(k.cwd); err != nil {
		cmd.Dir = dir // the folder it was started from is gone (a removed checkout): try its own
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("zkensemble: restart %s: %w", k.Addr, err)
	}
	go func() { _ = cmd.Wait() }() // reap it if it dies while we live
	return os.WriteFile(k.e.PidFile(k.Index), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
}

// processOf reads a process's command line, environment and folder.
func processOf(pid int) (argv, env []string, cwd string, err error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil || len(cmdline) == 0 {
		return nil, nil, "", fmt.Errorf("not running: %v", err)
	}
	environ, err := os.ReadFile(filepath.Join(proc, "environ"))
	if err != nil {
		return nil, nil, "", err
	}
	if cwd, err = os.Readlink(filepath.Join(proc, "cwd")); err != nil {
		return nil, nil, "", err
	}
	return split0(cmdline), split0(environ), cwd, nil
}

func split0(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
		out = append(out, string(f))
	}
	return out
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func hasSuffix(argv []string, suffix string) bool {
	for _, a := range argv {
		if strings.HasSuffix(a, suffix) {
			return true
		}
	}
	return false
}
