package sandbox

import (
	"strings"
	"testing"
)

// TestUserNamespaceMode runs attacks in the mode a runner that is not root gets: the namespaces inside a user
// namespace, where the solution is that namespace's root. Run as root, the namespace's root maps to the star's
// user, so the test also shows the mode does not depend on the runner being unprivileged.
func TestUserNamespaceMode(t *testing.T) {
	requireFull(t)
	data := fakeDataDir(t)
	iso := Isolation{namespaces: true, userNS: true, Missing: []string{"test: user namespace mode"}}
	sol := shellSolution(t, `T=$(cat "$1/target")
grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Cpus_allowed_list):' /proc/self/status | tr -d ' \t'
umount "$T" && echo UNMOUNTED
mount -t tmpfs x /tmp/ && echo MOUNTED
cat "$T/answers.json" "/proc/1/root$T/answers.json"
(echo x > "$1/new") 2>/dev/null && echo WROTE-STAR
/usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 22), timeout=1); print("CONNECTED")'
echo "entries=$(ls -A "$T" | wc -l)"; exit 0`)
	r := &Runner{Workers: 1, isolation: &iso, Limits: Limits{Mask: []string{data}}}
	res := runJobs(t, r, sol, starJob("u", map[string]string{"target": data}))["u"]
	assertReason(t, res, ExitOK)
	if res.Isolation != iso.String() {
		t.Errorf("isolation %q, want %q", res.Isolation, iso)
	}
	mustNotContain(t, res, secret)
	out := string(res.Stdout)
	for _, want := range []string{"Uid:0000\n", "CapEff:0000000000000000\n", "CapBnd:0000000000000000\n", "NoNewPrivs:1\n", "entries=0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, out, res.StderrTail)
		}
	}
	for _, bad := range []string{"UNMOUNTED", "MOUNTED", "WROTE-STAR", "CONNECTED"} {
		if strings.Contains(out, bad+"\n") {
			t.Errorf("the solution got %s:\n%s", bad, out)
		}
	}
	checkNoSurvivors(t, r)
}
