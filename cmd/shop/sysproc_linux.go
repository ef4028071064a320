package main

import "syscall"

// childSysProcAttr puts a demo child in its own process group, so that a
// Ctrl-C in the terminal reaches only the demo, which then stops the children
// in order (SIGTERM, bounded wait, SIGKILL) and reports each. Pdeathsig
// sends the child SIGTERM if the demo itself dies (kill -9), so that no
// replica is left holding its port. (Pdeathsig fires when the forking OS
// thread exits; the Go runtime keeps its threads, and nothing here locks one.)
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
