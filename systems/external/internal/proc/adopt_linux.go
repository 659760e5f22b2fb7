package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (Linux 3.4).
const prSetChildSubreaper = 36

// becomeSubreaper makes this process a child subreaper: a descendant
// orphaned by its parent's death — a server's worker that left the
// server's process group with setsid — is reparented to this process, not
// to init, so killAdopted can find it.
func becomeSubreaper() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
}

// killAdopted kills and reaps every child of this process that carries
// this process's marker (a descendant of one of its children, orphaned and
// adopted: becomeSubreaper) and is not a child it started and still
// tracks (skip). A child another package started carries no marker and is
// left alone. The caller holds groups' lock.
func killAdopted(skip func(pid int) bool) {
	self := os.Getpid()
	want := []byte(markerVar + "=" + marker)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip(pid) {
			continue
		}
		ppid, pgid, ok := procParent(pid)
		if !ok || ppid != self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !hasEntry(env, want) {
			continue
		}
		syscall.Kill(pid, syscall.SIGKILL)
		if pgid == pid {
			syscall.Kill(-pid, syscall.SIGKILL) // what it started in its own group
		}
		reap(pid)
	}
}

// reap waits for the adopted child pid, which was sent SIGKILL, so it
// leaves no zombie; it gives up after a second.
func reap(pid int) {
	deadline := time.Now().Add(time.Second)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || (err != nil && !errors.Is(err, syscall.EINTR)) || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// procParent reads the parent pid and process group of pid from
// /proc/PID/stat ("pid (comm) state ppid pgrp …").
func procParent(pid int) (ppid, pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	return ppid, pgid, err1 == nil && err2 == nil
}

// hasEntry reports whether the NUL-separated environment env holds entry.
func hasEntry(env, entry []byte) bool {
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}

// watchParent ends this process — through its SIGTERM handler, which
// kills every process group and adopted descendant first — when its parent
// dies, if it is a test binary or was started by the go command: `go test`
// killed by SIGTERM (what timeout and CI runners send) does not pass the
// signal on, and an orphaned test binary would keep its systems' servers
// and workers running until its own -test.timeout (10 min by default).
// A program run otherwise (nohup, a service) is left alone.
func watchParent(testBinary bool) {
	parent := os.Getppid()
	if parent <= 1 {
		return
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", parent))
	if !testBinary && filepath.Base(exe) != "go" {
		return
	}
	go func() {
		for {
			time.Sleep(parentPoll)
			if os.Getppid() != parent {
				fmt.Fprintf(os.Stderr, "systems/external: the parent process (pid %d, %s) is gone — the go command was killed? Killing the external systems' processes and exiting\n", parent, exe)
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
				return
			}
		}
	}()
}

// parentPoll is how often watchParent looks at the parent pid.
const parentPoll = 250 * time.Millisecond
