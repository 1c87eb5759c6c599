package workspace

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/template"
	"time"

	"transitbench/data/sets"
	"transitbench/sandbox"
)

//go:embed templates/TASK.md.tmpl starter/go/main.go starter/python/solution.py
var files embed.FS

// Presets of the contestant's budget (SPEC A8). The survey preset is TransitBench's; mini is this product's
// choice for the RL mini tasks (12 labelled stars), scaled down with the task.
var Presets = map[string]Preset{
	"survey": {Name: "survey", Turns: 60, Tokens: 200_000, Hours: 4},
	"mini":   {Name: "mini", Turns: 20, Tokens: 50_000, Hours: 1},
}

// Preset is a budget preset written into TASK.md.
type Preset struct {
	Name   string  `json:"name"`
	Turns  int     `json:"turns"`
	Tokens int     `json:"tokens"`
	Hours  float64 `json:"hours"`
}

// StateDir is the workspace's state directory, relative to its root.
const StateDir = ".transitbench"

// Config is the workspace's state file, StateDir/workspace.json.
type Config struct {
	// ID is the workspace's id, random at init and carried when the workspace is copied: its gradings count
	// within its lineage ("ws:" and the id, see Lineage), whatever path it is graded from.
	ID       string    `json:"id,omitempty"`
	Preset   string    `json:"preset"`
	Lang     string    `json:"lang"`
	Created  time.Time `json:"created"`
	DevSet   string    `json:"dev_set"`             // the set whose stars are in data/dev ("dev", or a mini task id)
	Task     string    `json:"task,omitempty"`      // the mini task of a mini workspace
	DevStars []string  `json:"dev_stars,omitempty"` // the labelled stars of a mini workspace, in order
	// DevComposition is the dev set's composition when it is not SPEC A2's (small sets for tests).
	DevComposition *sets.Composition `json:"dev_composition,omitempty"`
	// Fingerprint of the dev set the workspace was made from; a rebuilt set with another fingerprint is reported.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Workspace is an opened contestant's box.
type Workspace struct {
	Root   string
	Config Config
}

// Errors of the workspace package.
var (
	ErrNotWorkspace = errors.New("workspace: not a TransitBench workspace")
	ErrExists       = errors.New("workspace: directory is not empty")
)

// Open opens the workspace at root, or the nearest parent of root that is one.
func Open(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, StateDir, "workspace.json"))
		if err == nil {
			var c Config
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, fmt.Errorf("workspace: %s is corrupt (%v): re-create the workspace with 'transitbench init'", filepath.Join(dir, StateDir, "workspace.json"), err)
			}
			w := &Workspace{Root: dir, Config: c}
			if c.ID == "" {
				// A workspace made before workspace ids: give it one, so that its copies carry it. Where the
				// state file cannot be written, its lineage stays its path.
				c.ID = newWorkspaceID()
				if writeJSON(filepath.Join(dir, StateDir, "workspace.json"), c) == nil {
					w.Config = c
				}
			}
			return w, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if filepath.Dir(dir) == dir {
			return nil, fmt.Errorf("%w: no %s/workspace.json in %s or its parents: create one with 'transitbench init DIR'", ErrNotWorkspace, StateDir, abs)
		}
	}
}

// Lineage prefixes.
const (
	LineageWorkspace  = "ws:"         // and the workspace's id
	LineagePath       = "path:"       // and the workspace's path, for a workspace without an id
	LineageContestant = "contestant:" // and a contestant's label (grade --frozen --label)
)

// Lineage is what the workspace's gradings are numbered within (store.Run.Lineage): "ws:" and its id, which a
// copy of the workspace carries, so that a copied workspace does not start again at grading #1; "path:" and its
// path for a workspace whose id could not be recorded. Gradings are counted per data directory (the results
// store) and lineage.
func (w *Workspace) Lineage() string {
	if w.Config.ID == "" {
		return LineagePath + w.Root
	}
	return LineageWorkspace + w.Config.ID
}

// newWorkspaceID returns a random workspace id: 32 hexadecimal digits.
func newWorkspaceID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SolutionDir is the contestant's solution directory.
func (w *Workspace) SolutionDir() string { return filepath.Join(w.Root, "solution") }

// DevDir is the directory holding the labelled dev stars.
func (w *Workspace) DevDir() string { return filepath.Join(w.Root, "data", "dev") }

// taskData fills TASK.md.tmpl.
type taskData struct {
	Preset         string
	Turns          int
	Tokens         int
	Hours          float64
	Lang           string
	DevStars       int
	TimeoutSeconds int
	MemoryGiB      int
}

// renderTask renders TASK.md for a preset.
func renderTask(p Preset, lang string, devStars int, timeout time.Duration, memGiB int) ([]byte, error) {
	src, err := files.ReadFile("templates/TASK.md.tmpl")
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("TASK.md").Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = tmpl.Execute(&b, taskData{
		Preset: p.Name, Turns: p.Turns, Tokens: p.Tokens, Hours: p.Hours, Lang: lang,
		DevStars: devStars, TimeoutSeconds: int(timeout / time.Second), MemoryGiB: memGiB,
	})
	return b.Bytes(), err
}

// writeStarter writes the starter solution for lang ("go" or "python") into dir.
func writeStarter(dir, lang string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	switch lang {
	case "go":
		src, err := files.ReadFile("starter/go/main.go")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
			return err
		}
		mod := "module solution\n\ngo 1.22\n"
		return os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644)
	case "python":
		src, err := files.ReadFile("starter/python/solution.py")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "solution.py"), src, 0o755)
	default:
		return fmt.Errorf("workspace: unknown language %q: use go or python", lang)
	}
}

// SolutionKind is the kind of the workspace's solution as it stands: "python", "go" or "executable"
// (sandbox.Kind), "none" when solution/ holds none the sandbox can run. The front ends name it beside the
// workspace's path wherever they show its runs.
func (w *Workspace) SolutionKind() string {
	if sol, err := sandbox.Detect(w.SolutionDir()); err == nil {
		return string(sol.Kind)
	}
	if fi, err := os.Stat(filepath.Join(w.SolutionDir(), "solution.py")); err == nil && fi.Mode().IsRegular() {
		return string(sandbox.KindPython) // a Python solution on a machine without python3
	}
	return "none"
}
