package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/results"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
)

// emptyHome is a data directory with an empty results store.
func emptyHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return home
}

// ladderRows are the leaderboard's rows from the baseline ladder, by name.
func ladderRows(t *testing.T, s *Site) map[string]BoardRow {
	t.Helper()
	b, err := s.board(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]BoardRow{}
	for _, r := range b.Rows {
		if r.Kind == KindLadder {
			out[r.Name] = r
		}
	}
	return out
}

// writeTable writes a one-row ladder table (the empty row, S 0.123 on dev) under generator gen.
func writeTable(t *testing.T, path, gen string) {
	t.Helper()
	tab := baselines.Table{Generator: gen, Rows: []baselines.Row{{Name: baselines.RowEmpty,
		Cells: map[string]*baselines.Cell{"dev": {}}}}}
	tab.Rows[0].Cells["dev"].S = 0.123
	b, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLadderComesFromTheDataDirectoryOrTheProgram runs the site from a directory holding a one-row
// results/baselines.json, as a workspace or another checkout would: the leaderboard shows the compiled-in
// ladder (every row of the committed table), then the data directory's own table once it has one, and the
// file --baselines names when given; never the working directory's.
func TestLadderComesFromTheDataDirectoryOrTheProgram(t *testing.T) {
	var committed baselines.Table
	if err := json.Unmarshal(results.Baselines, &committed); err != nil || len(committed.Rows) < 2 {
		t.Fatalf("the compiled-in ladder: %v, %d rows", err, len(committed.Rows))
	}
	cwd := t.TempDir()
	writeTable(t, filepath.Join(cwd, "results", "baselines.json"), "from-the-working-directory")
	t.Chdir(cwd)

	home := emptyHome(t)
	open := func(file string) *Site {
		s, err := Open(Options{Home: home, Baselines: file})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open("")
	rows := ladderRows(t, s)
	if len(rows) != len(committed.Rows) || s.ladder.Generator != committed.Generator || s.ladderSource != baselines.SourceEmbedded {
		t.Errorf("no ladder in the data directory: %d rows of %s from %q, want the %d compiled-in rows of %s",
			len(rows), s.ladder.Generator, s.ladderSource, len(committed.Rows), committed.Generator)
	}
	var page bytes.Buffer
	if err := s.writeBoard(context.Background(), &page, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "from-the-working-directory") || !strings.Contains(page.String(), baselines.SourceEmbedded) {
		t.Error("the leaderboard does not name the compiled-in ladder, or names the working directory's")
	}

	writeTable(t, filepath.Join(home, baselines.LadderFileName), "home-table")
	s = open("")
	if rows := ladderRows(t, s); len(rows) != 1 || s.ladder.Generator != "home-table" || rows[baselines.RowEmpty].Dev.S != 0.123 {
		t.Errorf("with <home>/baselines.json: %d rows of %s, want its one row", len(rows), s.ladder.Generator)
	}

	given := filepath.Join(t.TempDir(), "given.json")
	writeTable(t, given, "given-table")
	if s = open(given); s.ladder.Generator != "given-table" || s.ladderSource != given {
		t.Errorf("with Baselines %s: the ladder of %s from %s", given, s.ladder.Generator, s.ladderSource)
	}
	os.WriteFile(filepath.Join(home, baselines.LadderFileName), []byte("{not json"), 0o644)
	if _, err := Open(Options{Home: home}); err == nil || !strings.Contains(err.Error(), "baseline ladder") {
		t.Errorf("a broken <home>/baselines.json: %v, want an error naming the ladder", err)
	}
}
