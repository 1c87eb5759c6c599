package sandbox

// starGroup is a star's cgroup as the runner drives it. A nil *starGroup stands for "no cgroup": every method
// then does nothing, and the RSS watchdog and the per-user kill take over.
type starGroup struct {
	cg starCgroup
	rc *runCgroup
}

type spareGroup struct {
	g   *starGroup
	err error
}

// starCgroup returns the cgroup of the worker's next star, or nil when the run has no cgroups. To keep the
// cost off the star's path, each call hands out the cgroup made while the previous star ran, and starts making
// the next one.
func (s *starRun) starCgroup() (*starGroup, error) {
	if s.cgroups == nil {
		return nil, nil
	}
	var got spareGroup
	if s.spare != nil {
		got = <-s.spare
	} else {
		got = s.newStarGroup()
	}
	s.spare = make(chan spareGroup, 1)
	go func(ch chan<- spareGroup) { ch <- s.newStarGroup() }(s.spare)
	return got.g, got.err
}

func (s *starRun) newStarGroup() spareGroup {
	cg, err := s.cgroups.star(s.cpu, s.lim)
	if err != nil {
		return spareGroup{err: err}
	}
	return spareGroup{g: &starGroup{cg: cg, rc: s.cgroups}}
}

// closeCgroups removes the cgroup made for a star that did not come.
func (s *starRun) closeCgroups() {
	if s.spare != nil {
		if got := <-s.spare; got.g != nil {
			got.g.end()
		}
		s.spare = nil
	}
}

// enter moves the child (still waiting at its gate) into the cgroup.
func (g *starGroup) enter(pid int) error {
	if g == nil {
		return nil
	}
	return g.cg.add(pid)
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
func (g *starGroup) end() {
	if g == nil {
		return
	}
	g.cg.kill()
	if g.rc == nil {
		g.cg.remove()
		return
	}
	g.rc.removing.Add(1)
	go func() {
		defer g.rc.removing.Done()
		g.cg.remove()
	}()
}
