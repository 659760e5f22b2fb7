//go:build !linux

package external

import "syscall"

// setPdeathsig does nothing where there is no parent-death signal: the
// reaper and the signal handler remain.
func setPdeathsig(*syscall.SysProcAttr) {}
