package sets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestHiddenSetSeedAndModes(t *testing.T) {
	home := t.TempDir()
	a := openFake(t, home, A, Options{Composition: &small})
	if !a.Hidden() {
		t.Error("A is not hidden")
	}
	seedPath := SecretSeedPath(home)
	if m := mode(t, seedPath); m != 0o600 {
		t.Errorf("secret seed mode %o, want 600", m)
	}
	if m := mode(t, a.Dir()); m != 0o700 {
		t.Errorf("hidden set directory mode %o, want 700", m)
	}
	for _, f := range []string{manifestFile, answersFile, starsFile} {
		if m := mode(t, filepath.Join(a.Dir(), f)); m != 0o600 {
			t.Errorf("%s mode %o, want 600", f, m)
		}
	}
	seed, _ := os.ReadFile(seedPath)
	mb, _ := os.ReadFile(filepath.Join(a.Dir(), manifestFile))
	if strings.Contains(string(mb), strings.TrimSpace(string(seed))) {
		t.Error("the manifest reveals the secret seed")
	}
	if _, err := a.AnswersJSON(); err == nil {
		t.Error("AnswersJSON gave a hidden set's answers")
	}
	// B shares the seed but not the stars.
	b := openFake(t, home, B, Options{Composition: &small})
	if b.Fingerprint == a.Fingerprint {
		t.Error("A and B are the same set")
	}
	// Another data directory draws another secret seed: another A.
	if a2 := openFake(t, t.TempDir(), A, Options{Composition: &small}); a2.Fingerprint == a.Fingerprint {
		t.Error("two fresh secret seeds gave the same A")
	}

	// The seed file goes missing: refuse and explain.
	os.Rename(seedPath, seedPath+".bak")
	_, err := Open(home, A, Options{Composition: &small, gen: &fakeGen{}})
	if !errors.Is(err, ErrSecretSeed) || !strings.Contains(err.Error(), seedPath) ||
		!strings.Contains(err.Error(), "--seed-file") {
		t.Errorf("missing seed file gave %v", err)
	}
	// Building B anew while A needs the missing seed is refused too.
	os.RemoveAll(b.Dir())
	_, err = Open(home, B, Options{Composition: &small, gen: &fakeGen{}})
	if !errors.Is(err, ErrSecretSeed) || !strings.Contains(err.Error(), "hidden set A was built with it") {
		t.Errorf("building B without A's seed gave %v", err)
	}
	if _, err := os.Stat(seedPath); err == nil {
		t.Error("a new seed was made while A needs the old one")
	}
	// A different seed is detected.
	other := filepath.Join(t.TempDir(), "other.seed")
	os.WriteFile(other, []byte(strings.Repeat("ab", 32)+"\n"), 0o600)
	if err := InstallSeedFile(home, other, false); err != nil {
		t.Fatal(err) // no seed in place: installing is allowed
	}
	if m := mode(t, seedPath); m != 0o600 {
		t.Errorf("installed seed mode %o", m)
	}
	_, err = Open(home, A, Options{Composition: &small, gen: &fakeGen{}})
	if !errors.Is(err, ErrSecretSeed) || !strings.Contains(err.Error(), "not the one") {
		t.Errorf("wrong seed gave %v", err)
	}
	// Installing over a seed that a built set needs is refused without force.
	if err := InstallSeedFile(home, seedPath+".bak", false); err == nil {
		t.Error("replacing the seed of built hidden sets was allowed without force")
	}
	if err := InstallSeedFile(home, seedPath+".bak", true); err != nil {
		t.Fatal(err)
	}
	a3 := openFake(t, home, A, Options{Composition: &small})
	if a3.Fingerprint != a.Fingerprint {
		t.Error("restoring the seed did not give back the same A")
	}
	// Rebuilding A with --force and the same seed gives the same set.
	if a4 := openFake(t, home, A, Options{Composition: &small, Force: true}); a4.Fingerprint != a.Fingerprint {
		t.Error("forced rebuild with the same seed changed A")
	}
}

func TestSeedFileFormat(t *testing.T) {
	home := t.TempDir()
	for _, bad := range []string{"", "xyz", strings.Repeat("a", 63), strings.Repeat("ab", 33)} {
		f := filepath.Join(t.TempDir(), "seed")
		os.WriteFile(f, []byte(bad), 0o600)
		if err := InstallSeedFile(home, f, false); !errors.Is(err, ErrSecretSeed) {
			t.Errorf("seed file %q accepted: %v", bad, err)
		}
	}
	if err := InstallSeedFile(home, filepath.Join(home, "nonexistent"), false); err == nil {
		t.Error("missing seed file accepted")
	}
	// An operator's seed gives the same hidden set in two data directories.
	f := filepath.Join(t.TempDir(), "seed")
	os.WriteFile(f, []byte("  "+strings.Repeat("0f", 32)+"\n\n"), 0o644)
	var fps []string
	for range 2 {
		h := t.TempDir()
		if err := InstallSeedFile(h, f, false); err != nil {
			t.Fatal(err)
		}
		fps = append(fps, openFake(t, h, A, Options{Composition: &small}).Fingerprint)
	}
	if fps[0] != fps[1] {
		t.Error("the same operator seed gave two different A sets")
	}
}
