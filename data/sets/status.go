package sets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Status is what the data directory holds of a set, read without building, loading or checking it.
type Status struct {
	Set         string `json:"set"`
	Built       bool   `json:"built"`       // a manifest is in place (Open still checks the files)
	Interrupted bool   `json:"interrupted"` // a half-built copy waits in sets/.build-<name>; the next build continues it
	StarsDone   int    `json:"stars_done"`  // finished stars of the interrupted build
	Stars       int    `json:"stars"`       // the size of the built set, else of the interrupted build
	Generator   string `json:"generator"`   // of the built set, else of the interrupted build
}

// StatusOf reports what home holds of set name: built, half-built by an interrupted build, or nothing.
func StatusOf(home, name string) Status {
	st := Status{Set: name}
	if m, err := readManifest(setDir(home, name), name); err == nil {
		st.Built, st.Stars, st.Generator = true, m.Stars, m.Generator
	}
	tmp := buildDir(home, name)
	b, err := os.ReadFile(filepath.Join(tmp, buildFile))
	if err != nil {
		return st
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil {
		return st
	}
	st.Interrupted = true
	if !st.Built {
		st.Stars, st.Generator = m.Stars, m.Generator
	}
	jb, _ := os.ReadFile(filepath.Join(tmp, journalFile))
	sc := bufio.NewScanner(bytes.NewReader(jb))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	seen := map[int]bool{}
	for sc.Scan() {
		var j journalLine
		if json.Unmarshal(sc.Bytes(), &j) == nil && j.Info.Digest != "" {
			seen[j.Index] = true
		}
	}
	st.StarsDone = len(seen)
	return st
}

// List returns the status of the standard sets and of every other set in home, standard sets first, then by
// name.
func List(home string) []Status {
	out := make([]Status, 0, len(Standard))
	names := map[string]bool{}
	for _, n := range Standard {
		out = append(out, StatusOf(home, n))
		names[n] = true
	}
	ents, _ := os.ReadDir(filepath.Join(home, "sets"))
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".build-") {
			n = strings.TrimPrefix(n, ".build-")
		}
		if !e.IsDir() || names[n] || validName(n) != nil {
			continue
		}
		names[n] = true
		out = append(out, StatusOf(home, n))
	}
	slices.SortStableFunc(out[len(Standard):], func(a, b Status) int { return strings.Compare(a.Set, b.Set) })
	return out
}
