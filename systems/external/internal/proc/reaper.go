package proc

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// No process a System starts may outlive the program running the
// benchmark, however that program ends. Three mechanisms cover the ways:
//
//   - Close, a timeout or a cancelled context kill a child's whole process
//     group (command, killGroup): the normal paths.
//   - SIGINT and SIGTERM: the first child installs a handler that kills
//     every live process group, then lets the signal end the program as it
//     would have (the handler is removed and the signal raised again). A
//     child runs in its own process group, so a terminal's Ctrl-C never
//     reaches it by itself.
//   - Any other end — `go test -timeout`'s panic, a crash, SIGKILL: every
//     child has a parent-death signal (SIGKILL, Linux), and a reaper process
//     (/bin/sh reading a pipe) holds the list of live process groups and
//     kills them when the pipe closes, which the kernel does when this
//     process dies. The parent-death signal fires when the OS thread that
//     started the child exits, not the process, so every child is started
//     from one goroutine locked to a thread that never exits (spawn).
//
// The reaper is what catches a server's own children (a worker it forked
// has no parent-death signal of ours); the parent-death signal is what
// catches a child if the reaper itself was killed.
//
// A descendant that leaves its process group (a worker that calls setsid)
// escapes group kills. Every child carries markerVar=marker in its
// environment, which its descendants inherit; this process is a child
// subreaper (Linux), so such a worker, orphaned when its server dies, is
// reparented here, and Release and killAll kill and reap the adopted
// children carrying the marker (killAdopted). The reaper, at the end, also
// kills every process carrying it. And when this is a test binary (or the
// go command started it) whose parent dies — `go test` killed by SIGTERM
// does not pass the signal on — it ends itself through its SIGTERM handler
// (watchParent), instead of running until its -test.timeout.

// groups is the registry of live process groups (by leader pid).
var groups = struct {
	sync.Mutex
	live      map[int]bool
	reaper    io.WriteCloser // the reaper's stdin; nil if it could not start
	reaperPid int
	once      sync.Once
}{live: map[int]bool{}}

// markerVar=marker is in the environment of every child, and so of their
// descendants unless one clears its environment: what tells this
// process's descendants from anyone else's once they have left their
// process group.
const markerVar = "RETRIEVALBENCH_EXTERNAL_RUN"

var marker = newMarker()

func newMarker() string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("%d-%x", os.Getpid(), b)
}

// withMarker returns env (nil: this process's environment, as exec.Cmd
// reads a nil Env) with markerVar set to this process's marker (a marker
// inherited from a parent replaced).
func withMarker(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, markerVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, markerVar+"="+marker)
}

// reaperScript keeps a set of process group ids from lines "+ PGID" and
// "- PGID" on stdin; at end of input (this process died, or exited) it
// kills every group still in the set, then every process whose
// environment carries the marker ($1: a setsid'd worker). It ignores the signals a terminal
// sends, so Ctrl-C leaves it to do its job.
const reaperScript = `trap '' INT HUP TERM
pgs=' '
while read -r op pg; do
	case $op in
	+) pgs="$pgs$pg " ;;
	-) case $pgs in *" $pg "*) pgs="${pgs%% $pg *} ${pgs#* $pg }" ;; esac ;;
	esac
done
for pg in $pgs; do kill -9 -"$pg" 2>/dev/null; done
for f in /proc/[0-9]*/environ; do
	if grep -qzxF "` + markerVar + `=$1" "$f" 2>/dev/null; then
		p=${f#/proc/}; kill -9 "${p%/environ}" 2>/dev/null
	fi
done
exit 0`

// setupReaper starts the reaper and the signal handler, once.
func setupReaper() {
	groups.once.Do(func() {
		if err := becomeSubreaper(); err != nil {
			fmt.Fprintf(os.Stderr, "systems/external: not a child subreaper (%v): a server's worker that calls setsid may outlive its cell\n", err)
		}
		watchParent(testing.Testing())
		cmd := exec.Command("/bin/sh", "-c", reaperScript, "reaper", marker)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // out of the terminal's reach
		w, err := cmd.StdinPipe()                             // our end is close-on-exec: no child holds it
		if err == nil {
			err = spawn(cmd.Start)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "systems/external: no reaper process (%v): children of a process killed by SIGKILL or a test timeout may outlive it\n", err)
		} else {
			groups.reaper, groups.reaperPid = w, cmd.Process.Pid
			go cmd.Wait() // it exits when we do; reap it if we close its input first
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			s := <-sig
			killAll()
			signal.Reset(syscall.SIGINT, syscall.SIGTERM)
			syscall.Kill(os.Getpid(), s.(syscall.Signal))
		}()
	})
}

// register records the process group cmd leads as live; the caller holds
// groups' lock.
func register(cmd *exec.Cmd) {
	pid := cmd.Process.Pid
	groups.live[pid] = true
	if groups.reaper != nil {
		fmt.Fprintf(groups.reaper, "+ %d\n", pid)
	}
}

// Release kills what is left of the process group cmd led and forgets it;
// the caller has waited for the leader.
func Release(cmd *exec.Cmd) {
	killGroup(cmd)
	if cmd.Process == nil {
		return
	}
	groups.Lock()
	defer groups.Unlock()
	pid := cmd.Process.Pid
	if groups.live[pid] {
		delete(groups.live, pid)
		if groups.reaper != nil {
			fmt.Fprintf(groups.reaper, "- %d\n", pid)
		}
	}
	killAdopted(tracked) // a worker of its that left the group, orphaned
}

// tracked reports whether pid is a child this package started and still
// tracks (a live group's leader, or the reaper); the caller holds groups'
// lock.
func tracked(pid int) bool { return groups.live[pid] || pid == groups.reaperPid }

// killAll kills every live process group (the signal handler).
func killAll() {
	groups.Lock()
	defer groups.Unlock()
	for pid := range groups.live {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	killAdopted(func(pid int) bool { return pid == groups.reaperPid })
}

// spawner runs start functions on one goroutine locked to its OS thread
// for the life of the process: a child's parent-death signal fires when
// the thread that forked it exits, and this one never does.
var spawner = struct {
	once sync.Once
	reqs chan func()
}{reqs: make(chan func())}

// spawn runs start (an exec.Cmd's Start) on the spawner thread.
func spawn(start func() error) error {
	spawner.once.Do(func() {
		go func() {
			goruntime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range spawner.reqs {
				f()
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- func() { done <- start() }
	return <-done
}

// startCmd starts cmd (from command) from the spawner thread and registers
// its process group with the reaper and the signal handler.
func startCmd(cmd *exec.Cmd) error {
	setupReaper()
	// Started and registered under the lock: killAdopted, running for
	// another group, must not take the new child for an adopted one.
	groups.Lock()
	defer groups.Unlock()
	if err := spawn(cmd.Start); err != nil {
		return err
	}
	register(cmd)
	return nil
}
