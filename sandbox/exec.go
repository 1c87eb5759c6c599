package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// child is a started sandbox child and what the runner collects from it.
type child struct {
	proc   *os.Process
	waited chan waitResult
	// mountNS holds the child's mount namespace open (a descriptor, -1 for none), so that the solution's exit
	// does not tear the sandbox's mounts down on its way (which takes the mount table's lock and waits for an
	// RCU grace period, milliseconds): the runner lets it go after the star, in the background
	// (releaseNamespace). Nothing enters the namespace through it.
	mountNS int

	mu         sync.Mutex
	killReason string
	killedAt   time.Time
	group      bool // kill the process group too (no PID namespace)
}

type waitResult struct {
	state *os.ProcessState
	at    time.Time
	err   error
}

// kill ends the child, recording why; only the first reason counts. In a PID namespace the kernel then kills
// every process of the namespace.
func (c *child) kill(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.killReason != "" {
		return
	}
	c.killReason, c.killedAt = reason, time.Now()
	if c.group {
		syscall.Kill(-c.proc.Pid, syscall.SIGKILL)
	}
	c.proc.Kill()
}

// releaseNamespace lets the child's mount namespace go: when the child has exited, its mounts are torn down
// now, by the caller.
func (c *child) releaseNamespace() {
	if c.mountNS >= 0 {
		syscall.Close(c.mountNS)
		c.mountNS = -1
	}
}

func (c *child) reason() (string, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killReason, c.killedAt
}

// exec runs the child of the slot sl for one star, killing it after wall, and fills in res.
// The star's child comes from its slot (slot.go): started, in its cgroup, its root built, waiting at its gate,
// which the runner opens once the star's files are ready.
func (s *starRun) exec(ctx context.Context, sl *slot, wall time.Duration, res Result) Result {
	<-sl.made
	s.trace.slot(sl)
	if sl.err != nil {
		res.ExitReason, res.StderrTail = ExitStartFailed, fmt.Sprintf("sandbox: %v", sl.err)
		return res
	}
	c, cg, p, cfg := sl.c, sl.cg, sl.p, sl.cfg
	if err := cg.pin(s.cpu); err != nil {
		sl.discard()
		res.ExitReason, res.StderrTail = ExitStartFailed, "sandbox: "+err.Error()
		return res
	}
	s.trace.mark(stagePinned)
	res.Protections.Cgroup = cg != nil
	start := time.Now()
	if err := openGate(sl.gateW); err != nil {
		// The child is gone: its setup failed, and the status pipe says why.
		c.proc.Kill()
		<-c.waited
		c.releaseNamespace()
		cg.end()
		msg, _ := io.ReadAll(p.stR)
		p.closeRead()
		if len(msg) > 0 {
			err = fmt.Errorf("setting up: %s", msg)
		}
		res.ExitReason, res.StderrTail = ExitStartFailed, fmt.Sprintf("sandbox: %v", err)
		return res
	}
	s.trace.mark(stageOpened)

	out := s.readOutput(p, c)
	w, treePeak := s.watch(ctx, c, cg, cfg, wall)
	s.trace.mark(stageExited)
	if cg != nil {
		cg.kill() // whatever the solution left behind, in or out of its namespaces
	} else if cfg.UID >= 0 && !cfg.Namespaces {
		killUser(cfg.UID) // without a PID namespace, daemons are found by their user
	}
	oom := cg.overMemory()
	treePeak = max(treePeak, cg.peak())
	s.trace.mark(stageKilled)
	cg.endAfter(c.releaseNamespace)
	s.trace.mark(stageEnded)
	if c.group {
		syscall.Kill(-c.proc.Pid, syscall.SIGKILL)
	}
	out.drain(p)
	res = out.result(res, c, w, start, oom, treePeak)
	s.trace.mark(stageCollected)
	return res
}

// childPipes are the child's stdout, stderr and setup-report pipes, both ends of each, and its stage pipe
// when the star's stages are recorded (nil otherwise).
type childPipes struct {
	outR, outW, errR, errW, stR, stW, trR, trW *os.File
}

// openPipes makes the pipes of a child, the stage pipe too when trace is set; on failure it closes those it
// made.
func openPipes(trace bool) (childPipes, error) {
	var p childPipes
	ends := [][2]**os.File{{&p.outR, &p.outW}, {&p.errR, &p.errW}, {&p.stR, &p.stW}}
	if trace {
		ends = append(ends, [2]**os.File{&p.trR, &p.trW})
	}
	for i, e := range ends {
		r, w, err := os.Pipe()
		if err != nil {
			for _, made := range ends[:i] {
				(*made[0]).Close()
				(*made[1]).Close()
			}
			return childPipes{}, err
		}
		*e[0], *e[1] = r, w
	}
	return p, nil
}

// closeWrite closes the parent's copies of the write ends, once the child holds its own.
func (p childPipes) closeWrite() {
	p.outW.Close()
	p.errW.Close()
	p.stW.Close()
	if p.trW != nil {
		p.trW.Close()
	}
}

func (p childPipes) closeRead() {
	p.outR.Close()
	p.errR.Close()
	p.stR.Close()
	if p.trR != nil {
		p.trR.Close()
	}
}

// childOutput is what the runner reads from a child's pipes.
type childOutput struct {
	readers sync.WaitGroup
	stdout  []byte
	stderr  tailBuffer
	setup   []byte
	execAt  time.Time // when the setup pipe closed: the child has exec'd the solution
}

// readOutput starts reading the child's pipes; stdout past its limit kills the child.
func (s *starRun) readOutput(p childPipes, c *child) *childOutput {
	out := &childOutput{stderr: tailBuffer{max: s.lim.StderrBytes}}
	out.readers.Add(3)
	go func() {
		defer out.readers.Done()
		out.stdout = readCapped(p.outR, s.lim.StdoutBytes, func() { c.kill(ExitOutputLimit) })
	}()
	go func() {
		defer out.readers.Done()
		io.Copy(&out.stderr, p.errR)
	}()
	go func() {
		defer out.readers.Done()
		out.setup, _ = io.ReadAll(p.stR)
		out.execAt = time.Now()
		s.trace.mark(stageExecuted)
	}()
	if p.trR != nil {
		out.readers.Add(1)
		go func() {
			defer out.readers.Done()
			s.trace.readChildStages(p.trR)
		}()
	}
	return out
}

// watch waits for the child, killing it after wall, on cancellation, or when its tree holds too much memory. It
// returns how the child ended and the largest resident memory of the tree it saw.
func (s *starRun) watch(ctx context.Context, c *child, cg *starGroup, cfg childConfig, wall time.Duration) (waitResult, int64) {
	timer := time.NewTimer(wall)
	defer timer.Stop()
	// RLIMIT_AS caps each process; the watchdog caps the whole tree, which could otherwise hold
	// Processes × MemoryBytes.
	interval := memoryWatchInterval
	if !cfg.Namespaces {
		interval *= 5 // each look scans the whole /proc
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var treePeak int64
	for {
		select {
		case w := <-c.waited:
			return w, treePeak
		case <-timer.C:
			c.kill(ExitTimeout)
		case <-ctx.Done():
			c.kill(ExitCancelled)
		case <-ticker.C:
			if cg.overMemory() {
				c.kill(ExitMemory)
				continue
			}
			if cg != nil {
				continue // the cgroup caps the memory of the whole tree
			}
			rss := treeRSS(c.proc.Pid, cfg.Namespaces)
			treePeak = max(treePeak, rss)
			if rss > s.lim.MemoryBytes {
				c.kill(ExitMemory)
			}
		}
	}
}

// drain waits for the readers and closes the pipes. In a PID namespace every writer is dead once its init has
// been reaped. Without one, a process that escaped the group could hold the pipes open: drain gives up on them
// after a grace period.
func (out *childOutput) drain(p childPipes) {
	done := make(chan struct{})
	go func() { out.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		p.closeRead()
		<-done
	}
	p.closeRead()
}

// result fills in res from what the child wrote, how it ended and why it was killed.
func (out *childOutput) result(res Result, c *child, w waitResult, start time.Time, oom bool, treePeak int64) Result {
	res.Stdout = out.stdout
	res.StderrTail = out.stderr.String()
	end := w.at
	reason, killedAt := c.reason()
	if reason != "" {
		end = killedAt
	}
	execAt := out.execAt
	if execAt.IsZero() || len(out.setup) > 0 {
		execAt = start
	}
	if end.After(execAt) {
		res.Runtime = end.Sub(execAt)
	}
	if w.state != nil {
		if ru, ok := w.state.SysUsage().(*syscall.Rusage); ok {
			res.PeakRSSBytes = ru.Maxrss * 1024
		}
	}
	res.PeakRSSBytes = max(res.PeakRSSBytes, treePeak)
	switch {
	case reason != "":
		res.ExitReason, res.ExitCode = reason, -1
	case oom && w.state != nil:
		// The kernel killed a process of the star's cgroup for want of memory.
		res.ExitReason, res.ExitCode = ExitMemory, w.state.ExitCode()
		if ws, ok := w.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	case len(out.setup) > 0:
		res.ExitReason = ExitStartFailed
		res.StderrTail = "sandbox: setting up: " + string(out.setup) + "\n" + res.StderrTail
	case w.err != nil || w.state == nil:
		res.ExitReason, res.StderrTail = ExitStartFailed, fmt.Sprintf("sandbox: waiting for the child: %v", w.err)
	default:
		res.ExitReason, res.ExitCode = classify(w.state.Sys().(syscall.WaitStatus), res.StderrTail)
		if res.ExitReason == ExitCode && out.stderr.goOOM {
			res.ExitReason = ExitMemory // a Go program's allocation failed (the address-space cap)
		}
	}
	return res
}

// memoryWatchInterval is how often the runner sums the resident memory of a star's process tree.
const memoryWatchInterval = 100 * time.Millisecond

// readCapped reads r to its end and returns at most max bytes. When more than max arrive it calls over once
// and stops reading.
func readCapped(r io.Reader, max int, over func()) []byte {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if len(out)+n > max {
			out = append(out, buf[:max-len(out)]...)
			over()
			return out
		}
		out = append(out, buf[:n]...)
		if err != nil {
			return out
		}
	}
}

// tailBuffer keeps the last max bytes written to it, and notes whether the Go runtime's out-of-memory crash
// went through it anywhere (goOOM): its message comes first, and the goroutine dumps that follow can push it out
// of the tail.
type tailBuffer struct {
	max   int
	buf   []byte
	carry []byte // the end of the previous writes, for a message split between two
	goOOM bool
}

// goOOMMessages are the Go runtime's lines when an allocation fails (runtime/malloc.go, runtime/mem_linux.go).
var goOOMMessages = []string{"fatal error: out of memory", "runtime: out of memory:"}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	if !t.goOOM {
		scan := append(t.carry, p...)
		for _, m := range goOOMMessages {
			if bytes.Contains(scan, []byte(m)) {
				t.goOOM = true
			}
		}
		t.carry = append(t.carry[:0], scan[max(0, len(scan)-64):]...)
	}
	return len(p), nil
}
func (t *tailBuffer) String() string {
	if len(t.buf) > t.max {
		return string(t.buf[len(t.buf)-t.max:])
	}
	return string(t.buf)
}

// killUser kills every process whose real user id is uid, and scans again until none is left alive (a process
// may fork between the scan and the kill, and a killed one takes a moment to die); it gives up after a second.
func killUser(uid int) {
	for range 100 {
		pids := userPIDs(uid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isRoot() bool { return os.Geteuid() == 0 }
