//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
	"sync"
)

// starCgroup is the cgroup of one star; there are none outside Linux.
type starCgroup interface {
	add(pid int) error
	pin(cpus string) error
	kill()
	oomKills() int64
	peak() int64
	remove() error
}

// runCgroup is the parent cgroup of one run; there are none outside Linux.
type runCgroup struct{ removing sync.WaitGroup }

func newRunCgroup() (*runCgroup, error) { return nil, errors.New(runtime.GOOS + " has no cgroups") }

func (rc *runCgroup) star(lim Limits) (starCgroup, error) {
	return nil, errors.New(runtime.GOOS + " has no cgroups")
}

func (rc *runCgroup) remove() {}

func probeCgroup(iso Isolation) Isolation {
	iso.Missing = append(iso.Missing, "cgroup: "+runtime.GOOS+" has no cgroups, so memory, CPU and process caps are per process only")
	return iso
}

// RemoveCgroupBase does nothing: there are no cgroups outside Linux.
func RemoveCgroupBase() {}
