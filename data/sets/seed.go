package sets

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PublicSeed is the seed of every public simulated set (dev, train and custom-named sets), as 64 hexadecimal
// digits: SHA-256 of the text "TransitBench public seed 1". Sets differ because the set name enters every star's
// seed (StarSeed), so dev and the train pool share no star. Changing it changes every public set.
const PublicSeed = "bb9115113f5845c6f759165561611a3f587575463d9a826ef0bc938ac2139968"

// SecretSeedFile is the name, inside the data directory, of the file holding the hidden sets' seed: 64
// hexadecimal digits (32 bytes) and a newline, mode 0600. A and B share it; their names keep their stars apart.
const SecretSeedFile = "secret.seed"

// ErrSecretSeed is wrapped by errors about the hidden sets' secret seed file.
var ErrSecretSeed = errors.New("sets: secret seed problem")

// StarSeed returns the seed of star index of a set: the first 8 bytes (big-endian) of SHA-256 over the
// length-prefixed generator version, set name, set seed and the index as 8 big-endian bytes. It is the same on
// every machine.
func StarSeed(generator, set string, setSeed []byte, index int) uint64 {
	var ix [8]byte
	binary.BigEndian.PutUint64(ix[:], uint64(index))
	h := hashKey("transitbench star seed", []byte(generator), []byte(set), setSeed, ix[:])
	return binary.BigEndian.Uint64(h[:8])
}

// seedCheck returns a hex digest that identifies a secret seed without revealing it: SHA-256 over a label and
// the seed. Manifests of hidden sets record it so a changed or replaced seed file is noticed.
func seedCheck(seed []byte) string {
	h := hashKey("transitbench seed check", seed)
	return hex.EncodeToString(h[:16])
}

// publicSeed returns PublicSeed's bytes.
func publicSeed() []byte {
	b, err := hex.DecodeString(PublicSeed)
	if err != nil || len(b) != 32 {
		panic("sets: PublicSeed is not 64 hexadecimal digits")
	}
	return b
}

// parseSeed decodes a seed file's content: 64 hexadecimal digits, surrounding white space ignored.
func parseSeed(b []byte, path string) ([]byte, error) {
	s := strings.TrimSpace(string(b))
	seed, err := hex.DecodeString(s)
	if err != nil || len(seed) != 32 {
		return nil, fmt.Errorf("%w: %s must hold 64 hexadecimal digits (32 bytes) and nothing else; "+
			"make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'", ErrSecretSeed, path)
	}
	return seed, nil
}

// SecretSeedPath returns where the hidden sets' seed lives in the data directory home.
func SecretSeedPath(home string) string { return filepath.Join(home, SecretSeedFile) }

// readSecretSeed reads the secret seed of home. It reports fs.ErrNotExist (wrapped) when there is none.
func readSecretSeed(home string) ([]byte, error) {
	path := SecretSeedPath(home)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist: %w", ErrSecretSeed, path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("%w: cannot read %s: %v; make it readable by the grader's user (mode 0600)",
			ErrSecretSeed, path, err)
	}
	return parseSeed(b, path)
}

// ensureSecretSeed returns the secret seed of home, creating it from crypto/rand (mode 0600) when it does not
// exist yet. It is only called when no hidden set is built, so a new seed changes nothing already built.
func ensureSecretSeed(home string) ([]byte, error) {
	seed, err := readSecretSeed(home)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return seed, err
	}
	seed = make([]byte, 32)
	if _, err := rand.Read(seed); err != nil {
		return nil, fmt.Errorf("%w: cannot draw a secret seed: %v", ErrSecretSeed, err)
	}
	if err := writeSecretSeed(home, seed); err != nil {
		return nil, err
	}
	return seed, nil
}

// writeSecretSeed stores seed in home's seed file with mode 0600, atomically (temporary file, then rename).
func writeSecretSeed(home string, seed []byte) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("%w: cannot create the data directory: %v", ErrSecretSeed, err)
	}
	path := SecretSeedPath(home)
	tmp, err := os.CreateTemp(home, ".secret-seed-*")
	if err != nil {
		return fmt.Errorf("%w: cannot write %s: %v", ErrSecretSeed, path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.WriteString(hex.EncodeToString(seed) + "\n")
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err == nil {
			return nil
		}
	} else {
		tmp.Close()
	}
	return fmt.Errorf("%w: cannot write %s: %v", ErrSecretSeed, path, err)
}

// InstallSeedFile makes the seed in file (64 hexadecimal digits) the hidden sets' secret seed of home, copying it
// into the data directory with mode 0600. When home already holds a different seed and a hidden set was built with
// that seed, it refuses unless force is set, because the hidden sets built with the old seed would no longer
// open; with force the caller must rebuild them. Installing the seed already in place does nothing.
func InstallSeedFile(home, file string, force bool) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%w: cannot read the seed file: %v", ErrSecretSeed, err)
	}
	seed, err := parseSeed(b, file)
	if err != nil {
		return err
	}
	release, err := lockBuild(home, lockKey(A))
	if err != nil {
		return err
	}
	defer release()
	old, err := readSecretSeed(home)
	switch {
	case err == nil && bytes.Equal(old, seed):
		return nil
	case err == nil && !force:
		if built := builtHidden(home); len(built) > 0 {
			return fmt.Errorf("%w: %s holds a different secret seed, used by the built hidden set(s) %s; "+
				"installing %s would make them unusable. Rebuild them with the new seed with --force "+
				"(their stars change, so earlier grades are not comparable), or leave out --seed-file",
				ErrSecretSeed, SecretSeedPath(home), strings.Join(built, ", "), file)
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !force:
		return fmt.Errorf("%w; repair it or give --force to replace it with %s", err, file)
	}
	return writeSecretSeed(home, seed)
}

// builtHidden lists the hidden sets of home that have a manifest.
func builtHidden(home string) []string {
	var out []string
	for _, name := range []string{A, B, MiniPool} {
		if _, err := os.Stat(filepath.Join(setDir(home, name), manifestFile)); err == nil {
			out = append(out, name)
		}
	}
	return out
}
