package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// keyringLeak adds a key to the star's user keyring, opens it to everybody and lists what /proc/keys shows
// with the marker in its description (the star's file "marker").
const keyringLeak = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
marker = open(os.path.join(sys.argv[1], "marker")).read().strip()
if open(os.path.join(sys.argv[1], "role")).read().strip() == "writer":
    KEY_SPEC_USER_KEYRING, KEYCTL_SETPERM = -4, 5
    key = libc.syscall(248, b"user", marker.encode(), b"leaked-through-the-keyring", 26, KEY_SPEC_USER_KEYRING)  # add_key
    if key < 0:
        print("add_key refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
    else:
        print("ADDED", key)
        if libc.syscall(250, KEYCTL_SETPERM, key, 0x3f3f3f3f, 0, 0) != 0:  # keyctl
            print("setperm refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
for line in open("/proc/keys"):
    if marker in line:
        print("SEEN", line.strip())
`

// TestAttackKeyring: a key one star puts in its user keyring, open to all, is seen neither by the next star of
// the same worker nor by the host.
func TestAttackKeyring(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses the x86-64 numbers of add_key and keyctl; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": keyringLeak})
	run := func(iso *Isolation, marker string) (writer, reader Result) {
		r := &Runner{Workers: 1, isolation: iso}
		got := runJobs(t, r, sol,
			starJob("writer", map[string]string{"marker": marker, "role": "writer"}),
			starJob("reader", map[string]string{"marker": marker, "role": "reader"}))
		checkNoSurvivors(t, r)
		return got["writer"], got["reader"]
	}

	// Control: without the filter the key is made, and both the next star and the host see it.
	marker := fmt.Sprintf("transitbench-leak-%d-%d", os.Getpid(), time.Now().UnixNano())
	w, rd := run(withoutSeccomp(t), marker)
	host := hostKeys(t, marker)
	t.Cleanup(func() { invalidateKeys(t, marker) })
	if !strings.Contains(string(w.Stdout), "ADDED") || !strings.Contains(string(rd.Stdout), "SEEN") || len(host) == 0 {
		t.Fatalf("control: writer %q (%q), reader %q, host %q: the leak does not work even without the filter",
			w.Stdout, w.StderrTail, rd.Stdout, host)
	}

	filtered := marker + "-filtered"
	w, rd = run(nil, filtered)
	assertReason(t, w, ExitOK)
	assertReason(t, rd, ExitOK)
	if len(w.Stdout) != 0 || !strings.Contains(w.StderrTail, "add_key refused: Operation not permitted") {
		t.Errorf("writer under the filter: stdout %q, stderr %q", w.Stdout, w.StderrTail)
	}
	if len(rd.Stdout) != 0 {
		t.Errorf("the next star saw the key: %q", rd.Stdout)
	}
	if host := hostKeys(t, filtered); len(host) != 0 {
		t.Errorf("the host sees the key: %q", host)
	}
}

// hostKeys returns the lines of /proc/keys, as this process sees them, that hold marker.
func hostKeys(t *testing.T, marker string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/keys")
	if err != nil {
		t.Fatalf("reading /proc/keys: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			lines = append(lines, l)
		}
	}
	return lines
}

// invalidateKeys removes the keys the control left behind.
func invalidateKeys(t *testing.T, marker string) {
	for _, l := range hostKeys(t, marker) {
		id, err := strconv.ParseInt(strings.Fields(l)[0], 16, 64)
		if err == nil {
			if _, err := unix.KeyctlInt(unix.KEYCTL_INVALIDATE, int(id), 0, 0, 0); err != nil {
				t.Errorf("removing the control's key %x: %v", id, err)
			}
		}
	}
}
