package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Attacks through the Go build: files that make the toolchain run an external program (the C compiler or
// linker) although cgo is off, and a build that exhausts its memory.

func TestAttackGoBuildExternalTools(t *testing.T) {
	main := "package main\n\nfunc main() {}\n"
	for name, c := range map[string]struct {
		files map[string]string
		want  string // in the error: the file (and line) refused
	}{
		// A host object is handed to the linker; the C toolchain links it.
		"syso": {map[string]string{"main.go": main, "blob_amd64.syso": "\x7fELF junk"}, "blob_amd64.syso"},
		"syso in a package": {map[string]string{"go.mod": "module m\n\ngo 1.22\n",
			"main.go": "package main\n\nimport _ \"m/sub\"\n\nfunc main() {}\n", "sub/sub.go": "package sub\n",
			"sub/x.syso": "\x7fELF junk"}, filepath.Join("sub", "x.syso")},
		// Directives of cgo's generated code: linker flags and dynamic imports for the external linker.
		"cgo_ldflag": {map[string]string{"main.go": "package main\n\n//go:cgo_ldflag \"-fuse-ld=/tmp/ld\"\n\nfunc main() {}\n"},
			"main.go:3"},
		"cgo_import_dynamic": {map[string]string{"main.go": main,
			"x.go": "package main\n\n//go:cgo_import_dynamic libc_getpid getpid \"libc.so.6\"\n"}, "x.go:3"},
		// Sources for the C, C++, Fortran and SWIG tool chains.
		"c":     {map[string]string{"main.go": main, "x.c": "int f(void) { return 1; }\n"}, "x.c"},
		"cxx":   {map[string]string{"main.go": main, "x.cc": "int f() { return 1; }\n"}, "x.cc"},
		"S":     {map[string]string{"main.go": main, "x.S": "#include <stdio.h>\n"}, "x.S"},
		"swig":  {map[string]string{"main.go": main, "x.swig": "%module x\n"}, "x.swig"},
		"f90":   {map[string]string{"main.go": main, "x.f90": "end\n"}, "x.f90"},
		"cgo_x": {map[string]string{"main.go": main, "_cgo_x.go": "package main\n"}, "_cgo_x.go"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "solution")
			for f, body := range c.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			msg := prepareFails(t, dir, secret)
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "external program") || !strings.Contains(msg, "remove") {
				t.Errorf("Prepare: %s\nwant it to name %s, say that it would run an external program and to remove it", msg, c.want)
			}
		})
	}
}

// TestGoBuildAssemblyAllowed: Go assembly (.s) is the Go toolchain's own, and stays allowed with cgo off.
func TestGoBuildAssemblyAllowed(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{
		"go.mod":      "module m\n\ngo 1.22\n",
		"main.go":     "package main\n\nimport \"fmt\"\n\nfunc one() int\n\nfunc main() { fmt.Println(one()) }\n",
		"one_amd64.s": "#include \"textflag.h\"\n\nTEXT ·one(SB),NOSPLIT,$0-8\n\tMOVQ $1, ret+0(FP)\n\tRET\n",
	})
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	if string(res.Stdout) != "1\n" {
		t.Errorf("stdout %q, want 1 (stderr %q)", res.Stdout, res.StderrTail)
	}
}

// TestGoModGodebug: go.mod may hold what the go command allows for godebug, a line or a block; require and
// replace stay refused in either form.
func TestGoModGodebug(t *testing.T) {
	requireFull(t)
	for name, gomod := range map[string]string{
		"block": "module m\n\ngo 1.22\n\ngodebug (\n\tdefault=go1.20 // the old behaviour\n\tpanicnil=1\n)\n",
		"line":  "module m\n\ngo 1.22\n\ngodebug default=go1.21\n",
		"mixed": "module m\n\ngo 1.22\ntoolchain go1.22.0\n\ngodebug panicnil=1\ngodebug (\n\thttp2client=0\n)\nretract v0.1.0\n",
	} {
		t.Run(name, func(t *testing.T) {
			sol := writeSolution(t, map[string]string{"go.mod": gomod,
				"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ok\") }\n"})
			res := runOne(t, sol, Limits{}, nil)
			assertReason(t, res, ExitOK)
			if string(res.Stdout) != "ok\n" {
				t.Errorf("stdout %q (stderr %q)", res.Stdout, res.StderrTail)
			}
		})
	}
	for name, c := range map[string]struct{ gomod, directive string }{
		"require after godebug": {"module m\n\ngo 1.22\n\ngodebug (\n\tpanicnil=1\n)\n\nrequire example.com/lib v1.0.0\n", "require"},
		"replace block":         {"module m\n\ngo 1.22\n\nreplace (\n\texample.com/lib => /var/tmp/lib\n)\n", "replace"},
		"tool":                  {"module m\n\ngo 1.24\n\ntool example.com/lib/cmd\n", "tool"},
	} {
		t.Run(name, func(t *testing.T) {
			sol := writeSolution(t, map[string]string{"go.mod": c.gomod, "main.go": "package main\n\nfunc main() {}\n"})
			msg := prepareFails(t, sol.Dir, secret)
			if !strings.Contains(msg, `"`+c.directive+`" directive`) {
				t.Errorf("Prepare: %s", msg)
			}
		})
	}
}

// TestGoBuildOutOfMemory: a constant string doubled 33 times (8 bytes × 2^33 = 64 GiB) fills the compiler's
// memory in seconds; the error says that the build ran out of memory, without the goroutine dumps of the
// compiler's crash.
func TestGoBuildOutOfMemory(t *testing.T) {
	requireFull(t)
	var bomb strings.Builder
	bomb.WriteString("package main\n\nconst s0 = \"abcdefgh\"\n")
	for i := 1; i <= 33; i++ {
		fmt.Fprintf(&bomb, "const s%d = s%d + s%d\n", i, i-1, i-1)
	}
	bomb.WriteString("\nfunc main() { println(len(s33)) }\n")
	sol := writeSolution(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "main.go": bomb.String()})
	start := time.Now()
	err := sol.Prepare(context.Background())
	t.Logf("Prepare after %v: %v", time.Since(start), err)
	if err == nil {
		t.Fatal("Prepare succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "the build ran out of memory (2 GiB)") || strings.Contains(msg, "fix the build errors") ||
		strings.Contains(msg, "goroutine ") {
		t.Errorf("Prepare: %.2000s\nwant \"the build ran out of memory (2 GiB)\" without goroutine dumps", msg)
	}
}

// TestTailBufferGoOOM: the Go runtime's out-of-memory message is noticed wherever it falls in the stream, split
// between two writes or followed by more dumps than the tail keeps; a message that merely mentions memory is not.
func TestTailBufferGoOOM(t *testing.T) {
	dumps := strings.Repeat("goroutine 1 [running]:\nruntime.throw(...)\n", 1000)
	for name, c := range map[string]struct {
		writes []string
		want   bool
	}{
		"whole":     {[]string{"# m\nfatal error: out of memory\n", dumps}, true},
		"split":     {[]string{"# m\nruntime: out of mem", "ory: cannot allocate 260046848-byte block\n", dumps}, true},
		"byte-wise": {strings.Split("fatal error: out of memory\n", ""), true},
		"other":     {[]string{"main.go:3: out of range\n", dumps}, false},
	} {
		b := tailBuffer{max: 1024}
		for _, w := range c.writes {
			b.Write([]byte(w))
		}
		if b.goOOM != c.want {
			t.Errorf("%s: goOOM = %v, want %v", name, b.goOOM, c.want)
		}
		if len(b.String()) > 1024 {
			t.Errorf("%s: the tail holds %d bytes, more than 1024", name, len(b.String()))
		}
	}
}
