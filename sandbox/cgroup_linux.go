package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// cgroupMount is where the kernel's cgroup filesystems are mounted: the v1 controllers one per directory (and a
// v2 hierarchy at unified/ in the hybrid layout), or the v2 hierarchy itself.
const cgroupMount = "/sys/fs/cgroup"

// cgroupBase is the directory, under the runner's own cgroup, that holds one cgroup per run, named
// <pid>-<random>; each holds one cgroup per star, star-<n>.
const cgroupBase = "transitbench"

// v1Controllers are the cgroup v1 controllers a star's cgroup uses; the first three are required.
var v1Controllers = []cgroup1.Name{cgroup1.Memory, cgroup1.Cpuset, cgroup1.Pids, cgroup1.Freezer, cgroup1.Cpuacct}

// tcpBufferBytes caps the TCP buffers of a star under cgroup v1, where they are a counter of their own
// (memory.kmem.tcp) outside the memory limit. A star's network namespace has no usable interface; the cap only
// matters under degraded isolation.
const tcpBufferBytes = 32 << 20

// runCgroup is the parent cgroup of one run, under which each star gets its own.
type runCgroup struct {
	v2    bool
	name  string // transitbench/<pid>-<random>, relative to the runner's own cgroup
	stars atomic.Int64
	// removing counts the stars' cgroups being removed; remove waits for them
	removing sync.WaitGroup

	// cgroup v1
	path       cgroup1.Path // the run's directory per controller, relative to the controller's mount
	hierarchy  cgroup1.Hierarchy
	memsw, tcp bool // memory.memsw.* (v2: memory.swap.max) and memory.kmem.tcp.* exist
	freezer    bool
	v1run      cgroup1.Cgroup
	v1dirs     map[cgroup1.Name]string // the run's directory in each controller it is in
	cpusetCpus string                  // the run's cpuset.cpus and cpuset.mems, which every star's cpuset
	cpusetMems string                  // needs before a task

	// cgroup v2
	v2mount string // the unified hierarchy's mount point
	v2group string // the run's group, relative to v2mount
	v2run   *cgroup2.Manager
}

// starCgroup is the cgroup of one star.
type starCgroup interface {
	add(pid int) error     // move a process in
	pin(cpus string) error // restrict it to the CPUs cpus (cpuset.cpus)
	kill()                 // SIGKILL every process in it until none is left
	oomKills() int64       // how many processes the kernel's OOM killer killed in it
	peak() int64           // the most memory it held, in bytes (0 when unknown)
	remove() error         // remove it from every controller; call kill first
}

// v2Mount returns where a cgroup v2 hierarchy with the memory, pids, cpuset and cpu controllers available is
// mounted, or "" when there is none.
func v2Mount() string {
	for _, m := range []string{cgroupMount, filepath.Join(cgroupMount, "unified")} {
		var st unix.Statfs_t
		if unix.Statfs(m, &st) != nil || st.Type != unix.CGROUP2_SUPER_MAGIC {
			continue
		}
		b, err := os.ReadFile(filepath.Join(m, "cgroup.controllers"))
		if err != nil {
			continue
		}
		have := strings.Fields(string(b))
		if contains(have, "memory") && contains(have, "pids") && contains(have, "cpuset") && contains(have, "cpu") {
			return m
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// v1Mounted reports whether the v1 controller is mounted at its usual place.
func v1Mounted(name cgroup1.Name) bool {
	var st unix.Statfs_t
	return unix.Statfs(filepath.Join(cgroupMount, string(name)), &st) == nil && st.Type == unix.CGROUP_SUPER_MAGIC
}

// newRunCgroup removes the cgroups left by runs that were killed, then creates this run's parent cgroup: v2
// where a hierarchy with the memory controller is usable, else v1 (memory, cpuset and pids required).
func newRunCgroup() (*runCgroup, error) {
	if !isRoot() {
		return nil, errors.New("not running as root")
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	name := fmt.Sprintf("%s/%d-%s", cgroupBase, os.Getpid(), hex.EncodeToString(rnd[:]))
	if m := v2Mount(); m != "" {
		return newRunCgroupV2(m, name)
	}
	if cgroups.Mode() == cgroups.Unified {
		return nil, errors.New("the cgroup v2 hierarchy lacks the memory, pids, cpuset or cpu controller")
	}
	var subs []cgroup1.Subsystem
	rc := &runCgroup{name: name}
	for _, n := range v1Controllers {
		if !v1Mounted(n) {
			if n == cgroup1.Memory || n == cgroup1.Cpuset || n == cgroup1.Pids {
				return nil, fmt.Errorf("the cgroup v1 %s controller is not mounted at %s", n, filepath.Join(cgroupMount, string(n)))
			}
			continue
		}
		switch n {
		case cgroup1.Memory:
			subs = append(subs, cgroup1.NewMemory(cgroupMount))
		case cgroup1.Cpuset:
			subs = append(subs, cgroup1.NewCpuset(cgroupMount))
		case cgroup1.Pids:
			subs = append(subs, cgroup1.NewPids(cgroupMount))
		case cgroup1.Freezer:
			subs = append(subs, cgroup1.NewFreezer(cgroupMount))
			rc.freezer = true
		case cgroup1.Cpuacct:
			subs = append(subs, cgroup1.NewCpuacct(cgroupMount))
		}
	}
	rc.hierarchy = func() ([]cgroup1.Subsystem, error) { return subs, nil }
	cleanStaleCgroupsV1(subs)
	rc.path = cgroup1.NestedPath(name)
	memDir, err := rc.dir(cgroup1.Memory, "")
	if err != nil {
		return nil, fmt.Errorf("finding the runner's own memory cgroup: %w", err)
	}
	rc.v1run, err = cgroup1.New(rc.path, &specs.LinuxResources{}, cgroup1.WithHierarchy(rc.hierarchy))
	if err != nil {
		return nil, fmt.Errorf("creating the cgroup %s: %w", name, err)
	}
	active := map[cgroup1.Name]bool{}
	for _, sub := range rc.v1run.Subsystems() {
		active[sub.Name()] = true
	}
	for _, n := range []cgroup1.Name{cgroup1.Memory, cgroup1.Cpuset, cgroup1.Pids} {
		if !active[n] {
			rc.v1run.Delete()
			return nil, fmt.Errorf("the cgroup v1 %s controller is mounted but this process is in no %s cgroup", n, n)
		}
	}
	rc.v1dirs = map[cgroup1.Name]string{}
	for n := range active {
		if rc.v1dirs[n], err = rc.dir(n, ""); err != nil {
			rc.v1run.Delete()
			return nil, fmt.Errorf("finding the run's %s cgroup: %w", n, err)
		}
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"cpuset.cpus", &rc.cpusetCpus}, {"cpuset.mems", &rc.cpusetMems}} {
		b, err := os.ReadFile(filepath.Join(rc.v1dirs[cgroup1.Cpuset], f.name))
		if err != nil {
			rc.v1run.Delete()
			return nil, fmt.Errorf("reading the run's %s: %w", f.name, err)
		}
		*f.to = strings.TrimSpace(string(b))
	}
	_, err = os.Stat(filepath.Join(memDir, "memory.memsw.limit_in_bytes"))
	rc.memsw = err == nil
	_, err = os.Stat(filepath.Join(memDir, "memory.kmem.tcp.limit_in_bytes"))
	rc.tcp = err == nil
	return rc, nil
}

// dir is the absolute directory of the run's cgroup (or of its child sub) in a v1 controller.
func (rc *runCgroup) dir(n cgroup1.Name, sub string) (string, error) {
	p, err := rc.path(n)
	if err != nil {
		return "", err
	}
	return filepath.Join(cgroupMount, string(n), p, sub), nil
}

func newRunCgroupV2(mount, name string) (*runCgroup, error) {
	own := "/"
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				own = p
			}
		}
	}
	res := &cgroup2.Resources{CPU: &cgroup2.CPU{}, Memory: &cgroup2.Memory{}, Pids: &cgroup2.Pids{}}
	cleanStaleCgroupsV2(filepath.Join(mount, own, cgroupBase))
	// Controllers can be handed down only from a cgroup without processes of its own (or the root): try under
	// the runner's cgroup first, then at the top of the hierarchy.
	var lastErr error
	for _, base := range []string{own, "/"} {
		if base == "/" && own != "/" {
			cleanStaleCgroupsV2(filepath.Join(mount, cgroupBase))
		}
		group := filepath.Join(base, name)
		m, err := cgroup2.NewManager(mount, group, res)
		if err == nil {
			rc := &runCgroup{v2: true, name: name, v2mount: mount, v2group: group, v2run: m}
			_, err := os.Stat(filepath.Join(mount, group, "memory.swap.max"))
			rc.memsw = err == nil
			return rc, nil
		}
		os.Remove(filepath.Join(mount, base, cgroupBase))
		lastErr = err
	}
	return nil, fmt.Errorf("creating the cgroup %s: %w", name, lastErr)
}

// star creates the cgroup of the next star: memory capped at lim.MemoryBytes with no swap, at most
// lim.Processes tasks, and the parent's CPUs until pin gives it the star's one CPU (the star's child is pinned
// before its gate opens: until then it runs only its own initialisation, on whichever CPU is free).
func (rc *runCgroup) star(lim Limits) (starCgroup, error) {
	name := "star-" + strconv.FormatInt(rc.stars.Add(1), 10)
	mem := lim.MemoryBytes
	if rc.v2 {
		zero, group := int64(0), true
		res := &cgroup2.Resources{
			Memory: &cgroup2.Memory{Max: &mem, OOMGroup: &group},
			Pids:   &cgroup2.Pids{Max: int64(lim.Processes)},
		}
		if rc.memsw {
			res.Memory.Swap = &zero
		}
		m, err := rc.v2run.NewChild(name, res)
		if err != nil {
			return nil, fmt.Errorf("creating the star's cgroup: %w", err)
		}
		return &v2Star{m: m, dir: filepath.Join(rc.v2mount, rc.v2group, name)}, nil
	}
	return rc.starV1(name, lim)
}

// starV1 creates a star's cgroup v1 by hand, one directory per controller of the run and the few files its
// limits need, in the order the kernel takes them: memory.limit_in_bytes before memory.memsw.limit_in_bytes
// (which may not be below it), cpuset.cpus and cpuset.mems before any task. (The library reads every parent's
// cpuset files again for each cgroup, over a millisecond a star.)
func (rc *runCgroup) starV1(name string, lim Limits) (starCgroup, error) {
	s := &v1Star{freezer: rc.freezer}
	fail := func(err error) (starCgroup, error) {
		s.remove()
		return nil, fmt.Errorf("creating the star's cgroup: %w", err)
	}
	for _, n := range v1Controllers {
		run, ok := rc.v1dirs[n]
		if !ok {
			continue
		}
		d := filepath.Join(run, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			return fail(err)
		}
		s.dirs = append(s.dirs, d)
		switch n {
		case cgroup1.Memory:
			s.mem = d
		case cgroup1.Pids:
			s.pids = d
		case cgroup1.Freezer:
			s.freeze = d
		case cgroup1.Cpuset:
			s.cpuset = d
		}
	}
	mem := strconv.FormatInt(lim.MemoryBytes, 10)
	files := [][2]string{
		{filepath.Join(s.mem, "memory.limit_in_bytes"), mem},
		{filepath.Join(s.mem, "memory.swappiness"), "0"},
		{filepath.Join(s.cpuset, "cpuset.cpus"), rc.cpusetCpus},
		{filepath.Join(s.cpuset, "cpuset.mems"), rc.cpusetMems},
		{filepath.Join(s.pids, "pids.max"), strconv.Itoa(lim.Processes)},
	}
	if rc.memsw {
		// memory plus swap at the memory cap: nothing swapped out
		files = append(files, [2]string{filepath.Join(s.mem, "memory.memsw.limit_in_bytes"), mem})
	}
	if rc.tcp {
		files = append(files, [2]string{filepath.Join(s.mem, "memory.kmem.tcp.limit_in_bytes"), strconv.Itoa(tcpBufferBytes)})
	}
	for _, f := range files {
		if err := writeKnob(f[0], f[1]); err != nil {
			return fail(err)
		}
	}
	return s, nil
}

// remove removes the run's parent cgroup (its stars' are removed as each ends).
func (rc *runCgroup) remove() {
	if rc == nil {
		return
	}
	rc.removing.Wait()
	if rc.v2 {
		rc.v2run.Delete()
		return
	}
	rc.v1run.Delete()
}

type v1Star struct {
	mem, pids, freeze, cpuset string   // its directories in the memory, pids, freezer and cpuset controllers
	dirs                      []string // its directories in every controller
	freezer                   bool
}

// add moves the process pid into the star's cgroup in every controller.
func (s *v1Star) add(pid int) error {
	p := strconv.Itoa(pid)
	for _, d := range s.dirs {
		if err := writeKnob(filepath.Join(d, "cgroup.procs"), p); err != nil {
			return fmt.Errorf("adding process %d to %s: %w", pid, d, err)
		}
	}
	return nil
}

func (s *v1Star) kill() {
	if len(readPIDs(filepath.Join(s.pids, "cgroup.procs"))) == 0 {
		return
	}
	if s.freezer {
		writeKnob(filepath.Join(s.freeze, "freezer.state"), "FROZEN")
	}
	killAll(filepath.Join(s.pids, "cgroup.procs"), func() {
		if s.freezer {
			writeKnob(filepath.Join(s.freeze, "freezer.state"), "THAWED")
		}
	})
}

func (s *v1Star) pin(cpus string) error {
	return writeKnob(filepath.Join(s.cpuset, "cpuset.cpus"), cpus)
}

func (s *v1Star) oomKills() int64 {
	return keyValue(filepath.Join(s.mem, "memory.oom_control"), "oom_kill")
}

func (s *v1Star) peak() int64 { return readInt(filepath.Join(s.mem, "memory.max_usage_in_bytes")) }

// remove removes the star's directory in every controller. The library's Delete would first walk every
// controller's directory for processes; after kill there are none, and rmdir fails on a cgroup that still has
// some.
func (s *v1Star) remove() error {
	var failed []string
	for _, dir := range s.dirs {
		if err := rmdirRetry(dir); err != nil {
			failed = append(failed, dir)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("removing the star's cgroup %s failed", strings.Join(failed, ", "))
	}
	return nil
}

type v2Star struct {
	m   *cgroup2.Manager
	dir string
}

func (s *v2Star) add(pid int) error { return s.m.AddProc(uint64(pid)) }

func (s *v2Star) kill() {
	if writeKnob(filepath.Join(s.dir, "cgroup.kill"), "1") == nil {
		waitEmpty(filepath.Join(s.dir, "cgroup.procs"))
		return
	}
	killAll(filepath.Join(s.dir, "cgroup.procs"), func() {})
}

func (s *v2Star) pin(cpus string) error {
	return writeKnob(filepath.Join(s.dir, "cpuset.cpus"), cpus)
}

func (s *v2Star) oomKills() int64 { return keyValue(filepath.Join(s.dir, "memory.events"), "oom_kill") }

func (s *v2Star) peak() int64 { return readInt(filepath.Join(s.dir, "memory.peak")) }

func (s *v2Star) remove() error { return s.m.Delete() }

// killAll sends SIGKILL to every process listed in procs, again and again until the list is empty (a process
// may fork between the read and the kill); after the first round it calls thaw. It gives up after two seconds.
func killAll(procs string, thaw func()) {
	for i := range 200 {
		pids := readPIDs(procs)
		if len(pids) == 0 {
			if i == 0 {
				thaw()
			}
			return
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		if i == 0 {
			thaw()
		}
		time.Sleep(time.Millisecond)
		if i > 20 {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// waitEmpty waits up to two seconds for the cgroup's process list to empty.
func waitEmpty(procs string) {
	for range 200 {
		if len(readPIDs(procs)) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeKnob writes value to the cgroup file path, with plain system calls: os.WriteFile would also try to
// register the file with the runtime's poller, five system calls more, and a star writes a dozen of them.
func writeKnob(path, value string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte(value)); err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// readKnob reads the cgroup file path (a few hundred bytes at most), with plain system calls (see writeKnob).
func readKnob(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var b []byte
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			return b, nil
		}
		b = append(b, buf[:n]...)
	}
}

func readPIDs(path string) []int {
	b, err := readKnob(path)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

func readInt(path string) int64 {
	b, err := readKnob(path)
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// keyValue reads the value of key from a file of "key value" lines.
func keyValue(path, key string) int64 {
	b, err := readKnob(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// staleRun reports whether a run cgroup's name (<pid>-<random>) belongs to a process that is gone.
func staleRun(name string) bool {
	pid, _, ok := strings.Cut(name, "-")
	if !ok {
		return false
	}
	p, err := strconv.Atoi(pid)
	if err != nil || p <= 0 || p == os.Getpid() {
		return false
	}
	return syscall.Kill(p, 0) == syscall.ESRCH
}

// cleanStaleCgroupsV1 removes, in every controller, the run cgroups of runs whose process is gone (killed
// before it could remove them), killing whatever is still inside.
func cleanStaleCgroupsV1(subs []cgroup1.Subsystem) {
	base := cgroup1.NestedPath(cgroupBase)
	for _, s := range subs {
		p, err := base(s.Name())
		if err != nil {
			continue
		}
		cleanStaleDir(filepath.Join(cgroupMount, string(s.Name()), p))
	}
}

func cleanStaleCgroupsV2(dir string) { cleanStaleDir(dir) }

// cleanStaleDir removes the stale run cgroups under dir (a transitbench directory in one hierarchy): first the
// stars' cgroups, then the run's.
func cleanStaleDir(dir string) {
	runs, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, r := range runs {
		if !r.IsDir() || !staleRun(r.Name()) {
			continue
		}
		run := filepath.Join(dir, r.Name())
		stars, _ := os.ReadDir(run)
		for _, st := range stars {
			if st.IsDir() {
				d := filepath.Join(run, st.Name())
				killAll(filepath.Join(d, "cgroup.procs"), func() {})
				os.WriteFile(filepath.Join(d, "freezer.state"), []byte("THAWED"), 0)
				rmdirRetry(d)
			}
		}
		rmdirRetry(run)
	}
}

// rmdirRetry removes a cgroup directory, retrying for a moment while its last processes finish exiting.
func rmdirRetry(dir string) error {
	var err error
	for range 20 {
		if err = unix.Rmdir(dir); err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return err
}

// probeCgroup adds to iso whether a star can get a cgroup of its own: it creates a run's cgroup and one
// star's, and removes them.
func probeCgroup(iso Isolation) Isolation {
	rc, err := newRunCgroup()
	if err == nil {
		var s starCgroup
		s, err = rc.star(Limits{}.withDefaults())
		if err == nil {
			err = s.remove()
		}
		rc.remove()
	}
	if err != nil {
		iso.Missing = append(iso.Missing, "cgroup: no cgroup per star ("+err.Error()+"), so memory held in the "+
			"kernel and in tmpfs, the CPU and the process count are capped per process only")
		return iso
	}
	iso.cgroup = true
	return iso
}

// RemoveCgroupBase removes the directory that holds the run cgroups (transitbench) under this process's own
// cgroup, in every hierarchy, when no run is left in it. A process whose cgroup someone else removes when it
// ends calls it as it finishes: Slurm's task/cgroup removes a task's cgroups when the task ends and cannot
// while a directory is left in them (the Slurm backend's worker does).
func RemoveCgroupBase() {
	base := cgroup1.NestedPath(cgroupBase)
	for _, n := range v1Controllers {
		if p, err := base(n); err == nil && v1Mounted(n) {
			unix.Rmdir(filepath.Join(cgroupMount, string(n), p))
		}
	}
	if m := v2Mount(); m != "" {
		if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if own, ok := strings.CutPrefix(line, "0::"); ok {
					unix.Rmdir(filepath.Join(m, own, cgroupBase))
				}
			}
		}
	}
}
