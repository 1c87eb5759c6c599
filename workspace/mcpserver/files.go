package mcpserver

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The solution tools read, write and list files inside the workspace's solution/ directory and nowhere else,
// so that an agent with only this server can write its pipeline. Paths are relative slash paths inside
// solution/: an absolute path, a ".." element or a NUL is refused before anything is opened, and every open
// goes through an os.Root of solution/, which refuses a symbolic link that leads outside it (the workspace's
// data, the data directory, a frozen copy of the solution graded before).
const (
	// MaxFileBytes is the most a solution_read returns and a solution_write takes: 256 KiB of text.
	MaxFileBytes = 256 << 10
	// MaxListEntries is the most entries solution_list returns.
	MaxListEntries = 1000
)

// errOutside is a path that is not inside solution/.
var errOutside = errors.New("the path is not inside solution/")

// solutionPath checks a path given by the client: a relative slash path inside solution/, cleaned ("." for
// solution/ itself when empty is allowed).
func solutionPath(p string, emptyOK bool) (string, error) {
	if p == "" && emptyOK {
		return ".", nil
	}
	switch {
	case p == "":
		return "", badInput("give a path inside solution/, e.g. main.go or solution.py")
	case strings.ContainsRune(p, 0):
		return "", badInput("path %q holds a NUL byte", p)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return "", badInput("path %q is absolute: give a path relative to solution/ (%v)", p, errOutside)
	}
	for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return "", badInput("path %q leaves solution/ (%v)", p, errOutside)
		}
	}
	return path.Clean(p), nil
}

// openSolution opens solution/ as an os.Root.
func (s *Server) openSolution() (*os.Root, error) {
	if err := os.MkdirAll(s.ws.SolutionDir(), 0o755); err != nil {
		return nil, err
	}
	return os.OpenRoot(s.ws.SolutionDir())
}

// rootError says what a refused or failed open means to the client.
func rootError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(p + " does not exist in solution/ (solution_list shows its files)")
	case strings.Contains(err.Error(), "escapes"):
		return badInput("%s leads outside solution/ through a symbolic link (%v)", p, errOutside)
	}
	return err
}

// SolutionFileIn names a file of solution/.
type SolutionFileIn struct {
	Path string `json:"path" jsonschema:"a path relative to solution/, e.g. main.go"`
}

// SolutionFileOut is a file of solution/ and its text.
type SolutionFileOut struct {
	Path       string `json:"path"`
	Bytes      int    `json:"bytes"`
	Executable bool   `json:"executable"`
	Content    string `json:"content"`
}

const solutionReadDoc = "Read a text file of the workspace's solution/ directory (at most 256 KiB; paths relative to " +
	"solution/, nothing outside it)."

func (s *Server) solutionRead(_ context.Context, _ *mcp.CallToolRequest, in SolutionFileIn) (*mcp.CallToolResult, SolutionFileOut, error) {
	p, err := solutionPath(in.Path, false)
	if err != nil {
		return nil, SolutionFileOut{}, err
	}
	root, err := s.openSolution()
	if err != nil {
		return nil, SolutionFileOut{}, err
	}
	defer root.Close()
	f, err := root.Open(p)
	if err != nil {
		return nil, SolutionFileOut{}, rootError(p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, SolutionFileOut{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, SolutionFileOut{}, badInput("%s is not a regular file (solution_list lists a directory)", p)
	}
	if fi.Size() > MaxFileBytes {
		return nil, SolutionFileOut{}, badInput("%s has %d bytes: solution_read returns files of at most %d", p, fi.Size(), MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, SolutionFileOut{}, err
	}
	if len(b) > MaxFileBytes || !utf8.Valid(b) {
		return nil, SolutionFileOut{}, badInput("%s is not UTF-8 text of at most %d bytes", p, MaxFileBytes)
	}
	return nil, SolutionFileOut{Path: p, Bytes: len(b), Executable: fi.Mode()&0o111 != 0, Content: string(b)}, nil
}

// SolutionWriteIn is a file to write into solution/.
type SolutionWriteIn struct {
	Path       string `json:"path" jsonschema:"a path relative to solution/, e.g. main.go; missing directories are made"`
	Content    string `json:"content" jsonschema:"the file's whole new text (at most 256 KiB)"`
	Executable bool   `json:"executable,omitempty" jsonschema:"make the file executable (an executable 'run' is a solution form)"`
}

// SolutionWriteOut says what was written.
type SolutionWriteOut struct {
	Path       string `json:"path"`
	Bytes      int    `json:"bytes"`
	Executable bool   `json:"executable"`
	Created    bool   `json:"created"`
}

const solutionWriteDoc = "Write (create or replace) a text file in the workspace's solution/ directory: at most 256 KiB, " +
	"paths relative to solution/, nothing outside it; executable: true for a 'run' script. run_dev runs the result."

func (s *Server) solutionWrite(_ context.Context, _ *mcp.CallToolRequest, in SolutionWriteIn) (*mcp.CallToolResult, SolutionWriteOut, error) {
	p, err := solutionPath(in.Path, false)
	if err != nil {
		return nil, SolutionWriteOut{}, err
	}
	if p == "." {
		return nil, SolutionWriteOut{}, badInput("give a file's path inside solution/, not solution/ itself")
	}
	if len(in.Content) > MaxFileBytes {
		return nil, SolutionWriteOut{}, badInput("content of %d bytes: solution_write takes at most %d", len(in.Content), MaxFileBytes)
	}
	root, err := s.openSolution()
	if err != nil {
		return nil, SolutionWriteOut{}, err
	}
	defer root.Close()
	if dir := path.Dir(p); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, SolutionWriteOut{}, rootError(p, err)
		}
	}
	created := false
	if fi, err := root.Stat(p); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, SolutionWriteOut{}, badInput("%s is not a regular file", p)
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		created = true
	} else {
		return nil, SolutionWriteOut{}, rootError(p, err)
	}
	mode := os.FileMode(0o644)
	if in.Executable {
		mode = 0o755
	}
	if err := root.WriteFile(p, []byte(in.Content), mode); err != nil {
		return nil, SolutionWriteOut{}, rootError(p, err)
	}
	if err := root.Chmod(p, mode); err != nil { // an existing file keeps its mode through WriteFile
		return nil, SolutionWriteOut{}, rootError(p, err)
	}
	return nil, SolutionWriteOut{Path: p, Bytes: len(in.Content), Executable: in.Executable, Created: created}, nil
}

// SolutionListIn names a directory of solution/.
type SolutionListIn struct {
	Dir string `json:"dir,omitempty" jsonschema:"a directory relative to solution/ (default: solution/ itself)"`
}

// SolutionEntry is one file or directory under the listed directory.
type SolutionEntry struct {
	Path       string `json:"path"`
	Dir        bool   `json:"dir,omitempty"`
	Bytes      int64  `json:"bytes"`
	Executable bool   `json:"executable,omitempty"`
	Link       bool   `json:"symlink,omitempty"`
}

// SolutionListOut lists a directory of solution/, recursively, in path order.
type SolutionListOut struct {
	Dir       string          `json:"dir"`
	Entries   []SolutionEntry `json:"entries"`
	Truncated bool            `json:"truncated"`
}

const solutionListDoc = "List the files of the workspace's solution/ directory (or of a directory inside it), recursively, " +
	"with their sizes and executable bits; at most 1,000 entries."

func (s *Server) solutionList(_ context.Context, _ *mcp.CallToolRequest, in SolutionListIn) (*mcp.CallToolResult, SolutionListOut, error) {
	p, err := solutionPath(in.Dir, true)
	if err != nil {
		return nil, SolutionListOut{}, err
	}
	root, err := s.openSolution()
	if err != nil {
		return nil, SolutionListOut{}, err
	}
	defer root.Close()
	if fi, err := root.Stat(p); err != nil {
		return nil, SolutionListOut{}, rootError(p, err)
	} else if !fi.IsDir() {
		return nil, SolutionListOut{}, badInput("%s is a file: solution_read reads it", p)
	}
	out := SolutionListOut{Dir: p, Entries: []SolutionEntry{}}
	err = fs.WalkDir(root.FS(), p, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == p {
			return nil
		}
		if len(out.Entries) == MaxListEntries {
			out.Truncated = true
			return fs.SkipAll
		}
		e := SolutionEntry{Path: name, Dir: d.IsDir(), Link: d.Type()&fs.ModeSymlink != 0}
		if fi, err := d.Info(); err == nil && !e.Dir {
			e.Bytes, e.Executable = fi.Size(), fi.Mode()&0o111 != 0
		}
		out.Entries = append(out.Entries, e)
		return nil
	})
	if err != nil {
		return nil, SolutionListOut{}, rootError(p, err)
	}
	sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Path < out.Entries[j].Path })
	return nil, out, nil
}
