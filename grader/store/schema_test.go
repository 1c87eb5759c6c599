package store

import (
	"errors"
	"strings"
	"testing"
)

func TestNewerSchemaRefused(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.DB().Exec(`UPDATE schema_version SET version = ?`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "newer transitbench") {
		t.Errorf("newer schema: %v", err)
	}
}

func TestReopenKeepsSchema(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.CreateRun(ctx, Run{Kind: KindMini, Set: "mini-dev-00000003"}); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s, path)
	wantSchemaVersion(t, s2)
	if rs, _ := s2.Runs(ctx, RunFilter{}); len(rs) != 1 || rs[0].Kind != KindMini {
		t.Errorf("runs after reopening: %+v", rs)
	}
	var mode string
	if err := s2.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
}
