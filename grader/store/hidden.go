package store

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// KeyFileName is the file beside the database holding the key that seals the resume state of hidden runs:
// 32 random bytes, mode 0600, made at the first hidden run. Without it the sealed state cannot be opened (a
// resumed hidden run then runs its stars again); it protects what it seals exactly as well as the hidden sets'
// secret seed in the same directory protects the sets themselves.
const KeyFileName = "results.key"

// keySize is the length of the key file and of the keys derived from it.
const keySize = 32

// hiddenKeys are the keys of one hidden run, derived from the key file and the run's ID with HMAC-SHA256:
// star names a star (its row key is HMAC(star, star ID)), seal encrypts its state (AES-256-GCM).
type hiddenKeys struct {
	star []byte
	seal cipher.AEAD
}

func derive(key []byte, label string, runID int64) []byte {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "transitbench results %s run %d", label, runID)
	return m.Sum(nil)
}

// runKeys returns the keys of hidden run runID, creating the key file when create is set and it is missing.
// They are derived once per run and store handle: a hidden set stores a state per star.
func (s *Store) runKeys(runID int64, create bool) (*hiddenKeys, error) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if k, ok := s.keys[runID]; ok {
		return k, nil
	}
	key, err := s.masterKey(create)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(derive(key, "seal", runID))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	k := &hiddenKeys{star: derive(key, "star", runID), seal: aead}
	if s.keys == nil {
		s.keys = map[int64]*hiddenKeys{}
	}
	s.keys[runID] = k
	return k, nil
}

// masterKey reads the key file, making it first when create is set and it is missing. Two processes making it
// at once agree: each writes a temporary file and links it into place, and the loser reads the winner's.
func (s *Store) masterKey(create bool) ([]byte, error) {
	path := filepath.Join(filepath.Dir(s.path), KeyFileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		if err := makeKeyFile(path); err != nil {
			return nil, err
		}
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("store: the key of hidden runs: %w", err)
	}
	if len(b) != keySize {
		return nil, fmt.Errorf("store: the key file %s holds %d bytes, not %d: move it aside (unfinished hidden runs then "+
			"run their stars again)", path, len(b), keySize)
	}
	return b, nil
}

// makeKeyFile writes a fresh key to path unless another process got there first.
func makeKeyFile(path string) error {
	fresh := make([]byte, keySize)
	if _, err := rand.Read(fresh); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".results-key-*")
	if err != nil {
		return fmt.Errorf("store: cannot make the key file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	_, werr := tmp.Write(fresh)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return fmt.Errorf("store: cannot write the key file %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("store: cannot make the key file %s: %w", path, err)
	}
	return nil
}

func (k *hiddenKeys) starKey(starID string) string {
	m := hmac.New(sha256.New, k.star)
	m.Write([]byte(starID))
	return hex.EncodeToString(m.Sum(nil))
}

// aad binds a sealed state to its run and row, so a state moved to another row or run does not open.
func aad(runID int64, starKey string) []byte {
	return binary.BigEndian.AppendUint64([]byte(starKey), uint64(runID))
}

// PutHiddenOutcome stores the resume state of one finished star of a hidden run: whatever the caller needs to
// take the star over when the run is resumed (the workspace keeps the star's contribution to the run's
// aggregates, never its rows, output or truth). The state is sealed with AES-256-GCM under a key derived from
// the key file and the run, and filed under an HMAC of the star ID, in a table without row IDs or timestamps:
// the file shows neither which star a state belongs to, nor what it says, nor in which order stars finished.
// The run must exist, be hidden (a public run's outcomes go to PutOutcome) and be running (ErrRunFinished
// otherwise). Storing a star again replaces its state. FinishRun with StatusDone deletes the
// run's states.
func (s *Store) PutHiddenOutcome(ctx context.Context, runID int64, starID string, state []byte) error {
	if starID == "" {
		return errors.New("store: a hidden outcome needs a star ID")
	}
	keys, err := s.runKeys(runID, true)
	if err != nil {
		return err
	}
	row := keys.starKey(starID)
	nonce := make([]byte, keys.seal.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := keys.seal.Seal(nonce, nonce, state, aad(runID, row))
	return s.inTx(ctx, func(tx *sql.Tx) error {
		status, hidden, err := runState(ctx, tx, runID)
		if err != nil {
			return err
		}
		if !hidden {
			return fmt.Errorf("store: run %d is not on a hidden set: store its outcomes with PutOutcome", runID)
		}
		if status != StatusRunning {
			return fmt.Errorf("store: hidden outcome for run %d: %w (%s); resume the run first", runID, ErrRunFinished, status)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO hidden_outcomes (run_id, star_key, sealed) VALUES (?, ?, ?)
			ON CONFLICT (run_id, star_key) DO UPDATE SET sealed = excluded.sealed`, runID, row, sealed)
		if err != nil {
			return fmt.Errorf("store: hidden outcome for run %d: %w", runID, err)
		}
		return nil
	})
}

// HiddenOutcomes returns the resume states stored for the stars starIDs of hidden run runID, by star ID; stars
// without a state, and states that do not open (the key file was replaced), are left out, so a resumed run
// runs those stars again.
func (s *Store) HiddenOutcomes(ctx context.Context, runID int64, starIDs []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM hidden_outcomes WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: hidden outcomes of run %d: %w", runID, err)
	}
	if n == 0 {
		return out, nil
	}
	keys, err := s.runKeys(runID, false)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	type sealedRow struct {
		key string
		b   []byte
	}
	rows, err := queryAll(ctx, s.db, func(sc scanner) (sealedRow, error) {
		var r sealedRow
		err := sc.Scan(&r.key, &r.b)
		return r, err
	}, `SELECT star_key, sealed FROM hidden_outcomes WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: hidden outcomes of run %d: %w", runID, err)
	}
	sealed := map[string][]byte{}
	for _, r := range rows {
		sealed[r.key] = r.b
	}
	ns := keys.seal.NonceSize()
	for _, id := range starIDs {
		row := keys.starKey(id)
		b, ok := sealed[row]
		if !ok || len(b) < ns {
			continue
		}
		state, err := keys.seal.Open(nil, b[:ns], b[ns:], aad(runID, row))
		if err == nil {
			out[id] = state
		}
	}
	return out, nil
}
