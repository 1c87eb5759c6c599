package sandbox

import (
	"strings"
	"testing"
)

// lockSignal is a solution that plays one of two roles, named by the star's file "role": the sender takes an
// flock, a POSIX read lock and an open-file-description read lock on three read-only files of the shared /usr
// and opens a fourth again and again for a few seconds; the receiver, a concurrent star, looks for each of them
// (flock LOCK_NB, F_GETLK, F_OFD_GETLK, inotify IN_OPEN) and prints what it saw. Locks and watches on the same
// host inodes would let two stars signal to each other.
const lockSignal = `import ctypes, errno, fcntl, os, select, struct, sys, time
role = open(sys.argv[1] + "/role").read().strip()
FLOCK, POSIX, OFD, WATCHED = "/usr/bin/env", "/usr/bin/cat", "/usr/bin/ls", "/usr/bin/true"
fd = {p: os.open(p, os.O_RDONLY) for p in (FLOCK, POSIX, OFD, WATCHED)}
F_OFD_GETLK, F_OFD_SETLK = 36, 37
def lk(typ): return struct.pack("hhqqi", typ, 0, 0, 0, 0)
if role == "send":
    res = []
    for name, f in (("flock", lambda: fcntl.flock(fd[FLOCK], fcntl.LOCK_EX | fcntl.LOCK_NB)),
                    ("posix", lambda: fcntl.fcntl(fd[POSIX], fcntl.F_SETLK, lk(fcntl.F_RDLCK))),
                    ("ofd", lambda: fcntl.fcntl(fd[OFD], F_OFD_SETLK, lk(fcntl.F_RDLCK)))):
        try:
            f(); res.append(name + "=ok")
        except OSError as e:
            res.append(name + "=" + errno.errorcode[e.errno])
    print("send", *res, flush=True)
    end = time.time() + 6
    while time.time() < end:
        os.close(os.open(WATCHED, os.O_RDONLY)); time.sleep(0.05)
    sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
ino = libc.inotify_init1(os.O_NONBLOCK)
print("inotify_init", 0 if ino >= 0 else ctypes.get_errno(), flush=True)
if ino >= 0 and libc.inotify_add_watch(ino, WATCHED.encode(), 0x20) < 0:  # IN_OPEN
    print("inotify_add_watch", ctypes.get_errno(), flush=True)
seen = set()
end = time.time() + 6
while time.time() < end and len(seen) < 4:
    try:
        fcntl.flock(fd[FLOCK], fcntl.LOCK_EX | fcntl.LOCK_NB); fcntl.flock(fd[FLOCK], fcntl.LOCK_UN)
    except OSError as e:
        if e.errno == errno.EWOULDBLOCK: seen.add("flock")
    if struct.unpack("hhqqi", fcntl.fcntl(fd[POSIX], fcntl.F_GETLK, lk(fcntl.F_WRLCK)))[0] != fcntl.F_UNLCK:
        seen.add("posix")
    if struct.unpack("hhqqi", fcntl.fcntl(fd[OFD], F_OFD_GETLK, lk(fcntl.F_WRLCK)))[0] != fcntl.F_UNLCK:
        seen.add("ofd")
    if ino >= 0 and select.select([ino], [], [], 0.05)[0] and os.read(ino, 4096):
        seen.add("inotify")
    time.sleep(0.02)
print("seen", *sorted(seen), flush=True)
`

// runLockSignal runs the sender and the receiver of lockSignal as two concurrent stars under iso (nil: the
// machine's) and returns their outputs.
func runLockSignal(t *testing.T, iso *Isolation) (send, recv string) {
	t.Helper()
	sol := writeSolution(t, map[string]string{"solution.py": lockSignal})
	r := &Runner{Workers: 2, isolation: iso}
	got := runJobs(t, r, sol, starJob("send", map[string]string{"role": "send"}),
		starJob("recv", map[string]string{"role": "recv"}))
	for _, id := range []string{"send", "recv"} {
		assertReason(t, got[id], ExitOK)
	}
	return string(got["send"].Stdout), string(got["recv"].Stdout)
}

// TestAttackLockSignal: two concurrent stars cannot signal through locks or inotify watches on the shared
// read-only tree. Without the filter (the control) the receiver sees every one of the sender's signals; under
// it, locking succeeds for the sender (python, sqlite and the like keep working) but takes no lock, and inotify
// is missing (ENOSYS), so the receiver sees nothing.
func TestAttackLockSignal(t *testing.T) {
	requireFull(t)
	send, recv := runLockSignal(t, withoutSeccomp(t))
	if !strings.Contains(send, "send flock=ok posix=ok ofd=ok") || !strings.Contains(recv, "seen flock inotify ofd posix") {
		t.Errorf("control: the sender printed %q and the receiver %q; want all four signals seen without the filter", send, recv)
	}
	send, recv = runLockSignal(t, nil)
	if !strings.Contains(send, "send flock=ok posix=ok ofd=ok") {
		t.Errorf("the sender printed %q: locking must still succeed under the filter", send)
	}
	if !strings.Contains(recv, "inotify_init 38\n") || !strings.Contains(recv, "seen\n") {
		t.Errorf("the receiver printed %q: want inotify_init refused with ENOSYS (38) and no signal seen", recv)
	}
}
