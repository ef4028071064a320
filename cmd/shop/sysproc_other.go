//go:build !linux

package main

import "syscall"

// childSysProcAttr: outside Linux the children stay in the demo's process
// group (portably), so a terminal Ctrl-C reaches them too and they stop
// gracefully on their own while the demo waits for them; and they outlive a
// demo killed with kill -9 (no Pdeathsig): stop them by the pids it printed.
func childSysProcAttr() *syscall.SysProcAttr { return nil }
