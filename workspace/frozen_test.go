package workspace

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/internal/testutil"
)

// TestGradeFrozenTar: a contestant's solution frozen to a tar is graded from the tar in another workspace, the
// grading naming the file's SHA-256 and its ordinal; a tar whose files were changed after freezing, and a tar
// that is not the one whose hash was submitted, are refused before anything runs.
func TestGradeFrozenTar(t *testing.T) {
	contestant, home := newTestWorkspace(t)
	testutil.WriteRunScript(t, contestant.SolutionDir(), "#!/bin/sh\necho period_days,t0_days,score\necho 3.3,171.0,5\n")
	out := filepath.Join(t.TempDir(), "solution.tar.gz")
	ff, err := ExportFrozen(contestant.SolutionDir(), out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ExportFrozen(contestant.SolutionDir(), filepath.Join(t.TempDir(), "again.tar.gz"))
	if err != nil || again.FileSHA != ff.FileSHA || again.Hash != ff.Hash {
		t.Fatalf("freezing the same tree twice: %+v then %+v (%v)", ff, again, err)
	}
	grader, err := Init(filepath.Join(t.TempDir(), "grader"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}

	tampered := filepath.Join(t.TempDir(), "tampered.tar.gz")
	retar(t, out, tampered, "solution/run", []byte("#!/bin/sh\ncat /run/star/answers.json\n"))
	if _, err := grader.GradeFrozen(context.Background(), tampered, "", opt, nil); !errors.Is(err, ErrFrozenMismatch) {
		t.Fatalf("a tar changed after freezing: %v, want ErrFrozenMismatch", err)
	}
	if _, err := grader.GradeFrozen(context.Background(), out, again.FileSHA[:63]+"0", opt, nil); !errors.Is(err, ErrFrozenMismatch) {
		t.Fatalf("a tar that is not the submitted one: %v, want ErrFrozenMismatch", err)
	}
	st := openTestStore(t, home)
	if runs, err := st.Runs(context.Background(), store.RunFilter{Kind: KindGrade}); err != nil || len(runs) != 0 {
		t.Fatalf("refused tars left %d grade runs (%v)", len(runs), err)
	}
	st.Close()

	rep, err := grader.GradeFrozen(context.Background(), out, ff.FileSHA, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Frozen != ff.Hash || rep.FrozenFile != ff.FileSHA || rep.Grading != 1 || rep.A == nil || !rep.A.Complete ||
		rep.A.StarsRun != small[sets.A].Total() || rep.B == nil || !rep.B.Complete {
		t.Fatalf("the grading of the tar: %+v", rep)
	}
	st = openTestStore(t, home)
	defer st.Close()
	runs, err := st.Runs(context.Background(), store.RunFilter{Kind: KindGrade, Label: grader.Root})
	if err != nil || len(runs) != 3 {
		t.Fatalf("grade runs: %d (%v), want 3", len(runs), err)
	}
	for _, r := range runs {
		if !r.HasFlag(FlagFile+ff.FileSHA) || r.Grading != 1 || r.SolutionHash != ff.Hash {
			t.Errorf("run %d on %s: flags %v grading %d hash %.12s; want the file's flag, grading 1, hash %.12s",
				r.ID, r.Set, r.Flags, r.Grading, r.SolutionHash, ff.Hash)
		}
	}
	// The same content again is refused, as for solution/.
	if _, err := grader.GradeFrozen(context.Background(), out, "", opt, nil); !errors.Is(err, ErrAlreadyGraded) {
		t.Errorf("grading the same tar twice: %v, want ErrAlreadyGraded", err)
	}
}

// retar copies the tar at src to dst with the file name's content replaced.
func retar(t *testing.T, src, dst, name string, content []byte) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if h.Name == name {
			body = content
			h.Size = int64(len(body))
		}
		names = append(names, h.Name)
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	if !slices.Contains(names, name) {
		t.Fatalf("%s holds no %s: %v", src, name, names)
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
