package sandbox

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A runner that is root gives every star a user id that no earlier star has used (SPEC A6, "a fresh uid per
// star"), so that nothing a star leaves in per-user kernel objects (keys, inotify and message-queue quotas,
// the process count of RLIMIT_NPROC) reaches the next star or another user of the machine.
//
// The ids come from [DefaultUIDBase, uidEnd): 0x70000000 to 0x7FFE0000, 268,304,384 ids. That is the range
// systemd's UIDS-GIDS.md leaves unused: above the ranges of regular, dynamic and container users (those end at
// 1879048191) and below both systemd's foreign-uid range (0x7FFE0000) and 2^31, past which many programs read a
// user id as negative.
//
// One counter, in the file uidCounterPath, hands them out to every process of the machine: a process takes a
// block of uidBlock ids under an exclusive flock(2), writes the end of the block back and hands the block out to
// its stars one id at a time. So two runners never share an id, even at the same time in different processes,
// and no id comes back before the whole range has been used (at 100 stars a second, a month). A random start
// per process in a large range would need no file, but it only makes a repeat unlikely, and a repeat between
// two runs at the same time would also let one runner's clean-up kill the other's star. The counter file is
// root's, 0600, in a directory only root may enter; the stars, which run as other users, cannot reach it.
//
// When the file cannot be used, the ids come from a random start in the range, counting up: distinct within the
// process, very probably distinct from other processes, but not guaranteed fresh, so the stars do not count
// as having a fresh uid (Protections.FreshUID false; the probe names "fresh_uid" in Isolation.Missing).
const (
	// DefaultUIDBase is the lowest user id a star runs as; Runner.UIDBase may raise it.
	DefaultUIDBase = 0x7000_0000
	uidEnd         = 0x7FFE_0000 // one past the highest
	uidBlock       = 64          // ids taken from the counter file at a time
)

// uidCounterPath is the counter file shared by the processes of the machine.
var uidCounterPath = "/run/transitbench/sandbox-uid"

// uids is the process's allocator; every Runner takes its stars' ids from it.
var uids = &uidAllocator{path: uidCounterPath}

// uidAllocator hands out user ids, uidBlock at a time from the counter file at path.
type uidAllocator struct {
	path string

	mu        sync.Mutex
	next, end int   // the current block: next is the next id to hand out, end is one past the block
	fresh     bool  // the current block came from the counter file
	err       error // why it did not
	fallback  int   // the start of the next block drawn without the file, 0 before the first
}

// take returns an id of at least base that this allocator has not handed out before, and whether it is fresh:
// taken from the shared counter, so that no other star on the machine has had it. When it is not, the error
// says why the counter could not be used; the id is valid all the same.
func (a *uidAllocator) take(base int) (uid int, fresh bool, err error) {
	if base <= 0 {
		base = DefaultUIDBase
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.next < base || a.next >= a.end {
		start, cerr := a.reserve(base)
		if cerr != nil {
			if a.fallback < base || a.fallback+uidBlock > uidEnd {
				a.fallback = randomUIDStart(base)
			}
			start = a.fallback
			a.fallback += uidBlock
		}
		a.next, a.end, a.fresh, a.err = start, start+uidBlock, cerr == nil, cerr
	}
	uid = a.next
	a.next++
	return uid, a.fresh, a.err
}

// reserve takes the block of uidBlock ids that starts at the counter (or at base, when that is higher) and
// moves the counter past it. When the range is used up it starts again at base.
func (a *uidAllocator) reserve(base int) (int, error) {
	if base+uidBlock > uidEnd {
		return 0, fmt.Errorf("sandbox: the user id base %d is past the sandbox range, which ends at %d", base, uidEnd)
	}
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return 0, fmt.Errorf("sandbox: creating the directory of the user id counter: %w", err)
	}
	fd, err := unix.Open(a.path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("sandbox: opening the user id counter %s: %w", a.path, err)
	}
	f := os.NewFile(uintptr(fd), a.path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("sandbox: the user id counter %s: %w", a.path, err)
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return 0, fmt.Errorf("sandbox: the user id counter %s belongs to user %d with mode %o: it must be this "+
			"user's and writable by it alone (remove it)", a.path, st.Uid, st.Mode&0o777)
	}
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		return 0, fmt.Errorf("sandbox: locking the user id counter %s: %w", a.path, err)
	}
	defer unix.Flock(fd, unix.LOCK_UN)
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("sandbox: reading the user id counter %s: %w", a.path, err)
	}
	next := base
	if s := strings.TrimSpace(string(buf[:n])); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("sandbox: the user id counter %s holds %q, not a number (remove it)", a.path, s)
		}
		next = max(next, v)
	}
	if next+uidBlock > uidEnd {
		next = base // the whole range has been used: start again
	}
	out := []byte(strconv.Itoa(next+uidBlock) + "\n")
	if err := f.Truncate(0); err != nil {
		return 0, fmt.Errorf("sandbox: writing the user id counter %s: %w", a.path, err)
	}
	if _, err := f.WriteAt(out, 0); err != nil {
		return 0, fmt.Errorf("sandbox: writing the user id counter %s: %w", a.path, err)
	}
	return next, nil
}

// randomUIDStart draws the start of a block in [base, uidEnd) from 64 random bits.
func randomUIDStart(base int) int {
	var b [8]byte
	rand.Read(b[:])
	span := uint64(uidEnd - uidBlock - base)
	if span == 0 {
		return base
	}
	return base + int(binary.LittleEndian.Uint64(b[:])%span)
}
