package proc

import "syscall"

// setPdeathsig asks the kernel to SIGKILL the child when the thread that
// started it exits (see spawn).
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
