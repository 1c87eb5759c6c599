package sandbox

import (
	"fmt"
	"os"
)

// slot is what a star's run starts from: its own directory (made empty), its own user id, its own cgroup (nil
// without cgroups) and its own sandbox child, started in its new namespaces, moved into that cgroup, handed the
// star's configuration, and waiting at its gate, with the root of the sandbox built and entered, for the
// star's files; with the pipes of its stdout, stderr, status and stages. A slot serves one star: it is taken by
// one star and handed to no other, and when it is not used (the run ended first, or its star failed before its
// gate opened) its child is killed, its cgroup and its directory removed.
//
// Where the child's namespaces do not depend on the star (full isolation: no user namespace, whose mapping
// names the star's user), a worker makes its next star's slot as soon as a star takes its own (makeNextSlot):
// the directory and the user id at once, the cgroup and the child in the background, so that starting the child
// program, its initialisation and the building of the sandbox's root stay off the star's path. The slot's
// cgroup has the parent's CPUs until its star takes it (exec pins it to the worker's CPU before the gate opens),
// so that the child's work up to the gate does not compete with the running star for its CPU.
type slot struct {
	dir    string      // the star's directory, empty until the star's Prepare ("" for the Go build's slot)
	uid    int         // the star's user id; -1 keeps the runner's
	fresh  bool        // uid came from the machine's counter (uid.go)
	uidErr error       // why it did not
	cfg    childConfig // the child's configuration, handed to it once it is in its cgroup

	made                     chan struct{} // closed once the fields below are set
	cg                       *starGroup
	c                        *child
	p                        childPipes
	gateW                    *os.File // the runner's end of the gate, open until openGate
	began, spawned, attached int64    // moments of the making, for the stage record (stages.go)
	err                      error
}

// slotsAheadCount is how many slots a worker keeps in the making ahead of its stars: a slot's making (its child's
// start and initialisation, its root) takes longer than a short star, so each slot gets two stars' time.
const slotsAheadCount = 2

// takeSlot returns the slot of the worker's next star: the oldest made ahead, else one made now.
func (s *starRun) takeSlot() *slot {
	if len(s.next) > 0 {
		sl := s.next[0]
		s.next = s.next[1:]
		return sl
	}
	return s.newStarSlot(false)
}

// makeNextSlot starts making the next stars' slots when slots may be made ahead, up to slotsAheadCount.
func (s *starRun) makeNextSlot() {
	for s.ahead && len(s.next) < slotsAheadCount {
		s.next = append(s.next, s.newStarSlot(true))
	}
}

// slotsAhead reports whether a worker may make its next star's slot in advance: the child's namespaces then
// must not depend on the star, which a user namespace's mapping does (it names the star's user).
func slotsAhead(iso Isolation) bool { return iso.namespaces && !iso.userNS }

// newStarSlot makes a star's slot: its directory and user id before it returns, its cgroup and child in the
// background when ahead is set, else before it returns too.
func (s *starRun) newStarSlot(ahead bool) *slot {
	sl := &slot{uid: -1, made: make(chan struct{})}
	dir, err := os.MkdirTemp(s.root, "star-")
	if err == nil {
		sl.dir = dir
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		sl.err = fmt.Errorf("creating the star directory: %w", err)
		close(sl.made)
		return sl
	}
	if isRoot() {
		sl.uid, sl.fresh, sl.uidErr = uids.take(s.uidBase)
	}
	sl.cfg = s.config(dir, sl.uid)
	if ahead {
		go s.startSlot(sl)
	} else {
		s.startSlot(sl)
	}
	return sl
}

// newSlot makes a slot for a child of the configuration cfg, before it returns: a run of its own outside the
// stars (the Go build).
func (s *starRun) newSlot(cfg childConfig) *slot {
	sl := &slot{uid: cfg.UID, cfg: cfg, made: make(chan struct{})}
	s.startSlot(sl)
	return sl
}

// startSlot makes the slot's pipes, cgroup and child, moves the child into the cgroup and hands it its
// configuration; then it closes sl.made. The stage pipe is made when the worker records stages.
func (s *starRun) startSlot(sl *slot) {
	defer close(sl.made)
	sl.began = monotonicNow()
	p, err := openPipes(s.onStages != nil)
	if err != nil {
		sl.err = err
		return
	}
	cg, err := s.newStarGroup()
	if err != nil {
		p.closeWrite()
		p.closeRead()
		sl.err = err
		return
	}
	sl.cfg.Trace = p.trR != nil
	c, gateW, err := startChild(sl.cfg, p.outW, p.errW, p.stW, p.trW)
	p.closeWrite()
	if err != nil {
		cg.end()
		p.closeRead()
		sl.err = fmt.Errorf("starting the sandbox child: %w", err)
		return
	}
	sl.spawned = monotonicNow()
	fail := func(err error) {
		gateW.Close()
		c.proc.Kill()
		<-c.waited
		c.releaseNamespace()
		cg.end()
		p.closeRead()
		sl.err = err
	}
	if err := cg.enter(c.proc.Pid); err != nil {
		fail(fmt.Errorf("moving the sandbox child into its cgroup: %w", err))
		return
	}
	sl.attached = monotonicNow()
	if err := sendConfig(gateW, sl.cfg); err != nil {
		fail(fmt.Errorf("starting the sandbox child: %w", err))
		return
	}
	sl.cg, sl.c, sl.p, sl.gateW = cg, c, p, gateW
}

// discard ends a slot whose child did not get through its gate: the child (waiting there) is killed and the
// cgroup removed. The caller removes the directory.
func (sl *slot) discard() {
	<-sl.made
	if sl.err != nil {
		return
	}
	sl.gateW.Close() // the child sees the gate close and exits
	sl.c.proc.Kill()
	<-sl.c.waited
	sl.c.releaseNamespace()
	sl.cg.end()
	sl.p.closeRead()
}

// removeDir removes a star's directory in the background, off the next star's path; the run waits for it.
func (s *starRun) removeDir(dir string) {
	if dir == "" {
		return
	}
	s.removing.Add(1)
	go func() {
		defer s.removing.Done()
		os.RemoveAll(dir)
	}()
}

// closeSlots discards the slots made for stars that did not come.
func (s *starRun) closeSlots() {
	for _, sl := range s.next {
		sl.discard()
		s.removeDir(sl.dir)
	}
	s.next = nil
}
