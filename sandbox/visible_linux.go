package sandbox

import (
	"path/filepath"
	"strings"

	"transitbench/sandbox/internal/jail"
)

// HostPathVisible reports whether a star sees the host path p at its own name: on Linux only the system trees
// (jail.HostTrees, bound read-only into the allow-list root) are in view, so a program a solution execs by host
// path must live under one of them; anything else (a binary in /work, /opt or a home directory) has to be
// shipped inside the solution directory.
func HostPathVisible(p string) bool {
	p = filepath.Clean(p)
	for _, root := range jail.HostTrees {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}
