//go:build !linux

package proc

import "syscall"

// setPdeathsig does nothing where there is no parent-death signal: the
// reaper and the signal handler remain.
func setPdeathsig(*syscall.SysProcAttr) {}
