//go:build darwin

package sandbox

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// startChild starts the running program as a sandbox child in its own session and process group; there are
// no namespaces on macOS, and no cgroup for enter to put it in (enter is only told the child's pid). trace, when
// not nil, is its stage pipe (childTraceFD).
func startChild(cfg childConfig, stdout, stderr, status, trace *os.File, enter func(pid int) error) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	env, devnull, err := childInputs(cfg)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	attr := &os.ProcAttr{
		Env:   env,
		Files: []*os.File{devnull, stdout, stderr, status},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	}
	if trace != nil {
		attr.Files = append(attr.Files, nil, trace) // childTraceFD; no gate
	}
	p, err := os.StartProcess(exe, []string{"transitbench-sandbox"}, attr)
	if err != nil {
		return nil, err
	}
	c := &child{proc: p, waited: make(chan waitResult, 1), group: true}
	if enter != nil {
		enter(p.Pid)
	}
	go func() {
		st, err := p.Wait()
		c.waited <- waitResult{state: st, at: time.Now(), err: err}
	}()
	return c, nil
}

// treeRSS is not measured on macOS; the per-process address-space cap still holds.
func treeRSS(pid int, ownNamespace bool) int64 { return 0 }

// userPIDs is not available on macOS: processes that leave their group are not found.
func userPIDs(uid int) []int { return nil }

// allowedCPUs is not available on macOS: stars are not pinned.
func allowedCPUs() []int { return nil }

func probe() Isolation {
	return Isolation{Missing: []string{runtime.GOOS + ": no namespaces, no CPU pinning and no memory watchdog; " +
		"the solution can read what its user can read, reach the network and leave processes behind"}}
}
