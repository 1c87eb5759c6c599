package sandbox

import (
	"fmt"
	"strconv"
)

// starGroup is a star's cgroup as the runner drives it. A nil *starGroup stands for "no cgroup": every method
// then does nothing, and the RSS watchdog and the per-user kill take over.
type starGroup struct {
	cg starCgroup
	rc *runCgroup
}

// newStarGroup makes the cgroup of a star of the worker, or returns nil when the run has no cgroups.
func (s *starRun) newStarGroup() (*starGroup, error) {
	if s.cgroups == nil {
		return nil, nil
	}
	cg, err := s.cgroups.star(s.lim)
	if err != nil {
		return nil, err
	}
	return &starGroup{cg: cg, rc: s.cgroups}, nil
}

// enter moves the child (still waiting at its gate) into the cgroup.
func (g *starGroup) enter(pid int) error {
	if g == nil {
		return nil
	}
	return g.cg.add(pid)
}

// pin restricts the cgroup to the one CPU cpu (cpu < 0: leaves it the parent's CPUs).
func (g *starGroup) pin(cpu int) error {
	if g == nil || cpu < 0 {
		return nil
	}
	if err := g.cg.pin(strconv.Itoa(cpu)); err != nil {
		return fmt.Errorf("pinning the star's cgroup to CPU %d: %w", cpu, err)
	}
	return nil
}

// overMemory reports whether the kernel has killed a process of the star for want of memory.
func (g *starGroup) overMemory() bool { return g != nil && g.cg.oomKills() > 0 }

// peak is the most memory the star held (resident, page cache, tmpfs, kernel), 0 without a cgroup.
func (g *starGroup) peak() int64 {
	if g == nil {
		return 0
	}
	return g.cg.peak()
}

// kill kills every process of the star.
func (g *starGroup) kill() {
	if g != nil {
		g.cg.kill()
	}
}

// end kills what is left and removes the cgroup, in the background: the run's remove waits for it.
func (g *starGroup) end() { g.endAfter(func() {}) }

// endAfter is end, calling first before the cgroup is removed (in the background too, but without a cgroup).
func (g *starGroup) endAfter(first func()) {
	if g == nil {
		first()
		return
	}
	g.cg.kill()
	if g.rc == nil {
		first()
		g.cg.remove()
		return
	}
	g.rc.removing.Add(1)
	go func() {
		defer g.rc.removing.Done()
		first()
		g.cg.remove()
	}()
}
