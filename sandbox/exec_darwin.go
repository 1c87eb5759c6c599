//go:build darwin

package sandbox

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// startChild starts the running program as a sandbox child in its own session and process group (there are
// no namespaces on macOS), and returns the runner's end of its gate, through which openGate hands it its
// configuration. trace, when not nil, is its stage pipe (jail.TraceFD).
func startChild(cfg childConfig, stdout, stderr, status, trace *os.File) (*child, *os.File, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	defer devnull.Close()
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer gateR.Close()
	attr := &os.ProcAttr{
		Env:   childEnviron(),
		Files: []*os.File{devnull, stdout, stderr, status, gateR}, // gateR is jail.GateFD
		Sys:   &syscall.SysProcAttr{Setsid: true},
	}
	if trace != nil {
		attr.Files = append(attr.Files, trace) // jail.TraceFD
	}
	p, err := os.StartProcess(exe, []string{"transitbench-sandbox"}, attr)
	if err != nil {
		gateW.Close()
		return nil, nil, err
	}
	c := &child{proc: p, waited: make(chan waitResult, 1), group: true, mountNS: -1}
	go func() {
		st, err := p.Wait()
		c.waited <- waitResult{state: st, at: time.Now(), err: err}
	}()
	return c, gateW, nil
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
