package sandbox

import (
	"fmt"
	"os"
)

// slot is what a star's run starts from: its own cgroup (nil without cgroups) and its own sandbox child, already
// started in its new namespaces, moved into that cgroup and waiting at its gate for its configuration, with
// the pipes of its stdout, stderr, status and stages. A slot serves one star: it is taken by one star and
// handed to no other, and when it is not used (the run ended first) its child is killed and its cgroup removed.
//
// Where the child's namespaces do not depend on the star (full isolation: no user namespace, whose mapping
// names the star's user), a worker makes its next star's slot while a star's solution runs (makeNextSlot), so
// that starting the child program and making the cgroup stay off the star's path, as the cgroup alone used to.
// The slot's cgroup has the parent's CPUs until its star takes it (exec pins it to the worker's CPU before the
// gate opens), so that the child's own initialisation does not compete with the running star for its CPU.
type slot struct {
	cg    *starGroup
	c     *child
	p     childPipes
	gateW *os.File // the runner's end of the gate: the configuration goes through it

	began, spawned, attached int64 // moments of the making, for the stage record (stages.go)
	err                      error
}

// takeSlot returns the slot of the worker's next star, whose child starts with cfg's namespaces: the one made
// while the previous star ran, else one made now.
func (s *starRun) takeSlot(cfg childConfig) slot {
	if s.next != nil {
		sl := <-s.next
		s.next = nil
		return sl
	}
	return s.newSlot(cfg)
}

// makeNextSlot starts making the next star's slot, when slots may be made ahead, once started is closed: when
// the star's solution has been executed, so that the making does not compete with the star's own setup (the
// kernel's mount and namespace work serialises) but overlaps the solution's run.
func (s *starRun) makeNextSlot(cfg childConfig, started <-chan struct{}) {
	if !s.ahead {
		return
	}
	s.next = make(chan slot, 1)
	go func(ch chan<- slot) {
		<-started
		ch <- s.newSlot(cfg)
	}(s.next)
}

// slotsAhead reports whether a worker may make its next star's slot in advance: the child's namespaces then
// must not depend on the star, which a user namespace's mapping does (it names the star's user).
func slotsAhead(iso Isolation) bool { return iso.namespaces && !iso.userNS }

// newSlot makes a slot: pipes, a cgroup, and a child started with cfg's namespaces and moved into the cgroup.
// The stage pipe is made when the worker records stages.
func (s *starRun) newSlot(cfg childConfig) slot {
	sl := slot{began: monotonicNow()}
	p, err := openPipes(s.onStages != nil)
	if err != nil {
		return slot{err: err}
	}
	cg, err := s.newStarGroup()
	if err != nil {
		p.closeWrite()
		p.closeRead()
		return slot{err: err}
	}
	c, gateW, err := startChild(cfg, p.outW, p.errW, p.stW, p.trW)
	p.closeWrite()
	if err != nil {
		cg.end()
		p.closeRead()
		return slot{err: fmt.Errorf("starting the sandbox child: %w", err)}
	}
	sl.spawned = monotonicNow()
	if err := cg.enter(c.proc.Pid); err != nil {
		gateW.Close()
		c.proc.Kill()
		<-c.waited
		cg.end()
		p.closeRead()
		return slot{err: fmt.Errorf("moving the sandbox child into its cgroup: %w", err)}
	}
	sl.attached = monotonicNow()
	sl.cg, sl.c, sl.p, sl.gateW = cg, c, p, gateW
	return sl
}

// discard ends a slot that no star used: its child (still at its gate) is killed and its cgroup removed.
func (sl slot) discard() {
	if sl.err != nil {
		return
	}
	sl.gateW.Close() // the child sees the gate close without its configuration and exits
	sl.c.proc.Kill()
	<-sl.c.waited
	sl.cg.end()
	sl.p.closeRead()
}

// closeSlots discards the slot made for a star that did not come.
func (s *starRun) closeSlots() {
	if s.next != nil {
		(<-s.next).discard()
		s.next = nil
	}
}
