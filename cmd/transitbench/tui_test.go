package main

import (
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxSession drives the real binary in a detached tmux session on a private server socket.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func (s *tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) capture() string {
	out, err := s.tmux("capture-pane", "-p", "-t", s.name)
	if err != nil {
		return ""
	}
	return out
}

// waitFor polls the screen until ok accepts it, failing the test with the last screen after timeout.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	s.t.Helper()
	giveUp := time.Now().Add(timeout)
	for {
		screen := s.capture()
		if ok(screen) {
			return screen
		}
		if time.Now().After(giveUp) {
			s.t.Fatalf("timed out after %v waiting for %s; the screen:\n%s", timeout, what, screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		if out, err := s.tmux("send-keys", "-t", s.name, k); err != nil {
			s.t.Fatalf("send-keys %s: %v %s", k, err, out)
		}
		time.Sleep(150 * time.Millisecond) // one key per read, as a person types
	}
}

func containsAll(screen string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(screen, p) {
			return false
		}
	}
	return true
}

// TestTUIInTmux starts the real binary with no arguments in a 120×40 tmux session on an empty data directory,
// waits for the star browser (the first run builds the dev set and the default workspace), opens a star,
// checks the four panels and a folded view, switches star, and quits with q, leaving no process behind; then
// it draws a star of the data directory so built with 'transitbench plot'.
func TestTUIInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dev set and the default workspace: not in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "transitbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	s := &tmuxSession{t: t, socket: fmt.Sprintf("transitbench-test-%d", os.Getpid()), name: "tb"}
	if out, err := s.tmux("new-session", "-d", "-s", s.name, "-x", "120", "-y", "40",
		"env", "TRANSITBENCH_HOME="+home, "TERM=xterm-256color", bin); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	t.Cleanup(func() { s.tmux("kill-server") })
	pidText, err := s.tmux("display-message", "-p", "-t", s.name, "#{pane_pid}")
	if err != nil {
		t.Fatalf("pane pid: %v %s", err, pidText)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil {
		t.Fatalf("pane pid %q: %v", pidText, err)
	}

	s.waitFor("the star browser", 8*time.Minute, func(sc string) bool {
		return containsAll(sc, "dev stars", "196/196 stars", "dev-0000", "dev-0001")
	})
	s.send("Enter")
	titles := []string{"Light curve", "Periodogram", "Folded", "Candidates"}
	screen := s.waitFor("the star view of dev-0000 with a folded curve", 2*time.Minute, func(sc string) bool {
		// The fold's information line ("P … d  T14 … h  depth±err ppm  MES …") appears once the fold is drawn.
		return containsAll(sc, append(titles, "star dev-0000", "ppm", "MES")...)
	})
	if !strings.ContainsAny(screen, "⠁⠂⠄⡀⠈⠐⠠⢀⣿") {
		t.Errorf("the star view has no braille plot:\n%s", screen)
	}
	s.send("Right")
	s.waitFor("the star view of dev-0001 with a folded curve", 2*time.Minute, func(sc string) bool {
		return containsAll(sc, append(titles, "star dev-0001", "ppm", "MES")...)
	})
	s.send("q")
	giveUp := time.Now().Add(15 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(giveUp) {
			t.Fatalf("the program (pid %d) is still running 15 s after q; the screen:\n%s", pid, s.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out, err := s.tmux("has-session", "-t", s.name); err == nil {
		t.Errorf("the tmux session outlived the program: %s", out)
	}

	// The same views as a figure, from the data directory the interface built.
	figure := filepath.Join(dir, "dev-0000.png")
	cmd := exec.Command(bin, "plot", "--star", "dev-0000", "--out", figure)
	cmd.Env = append(os.Environ(), "TRANSITBENCH_HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("transitbench plot: %v\n%s", err, out)
	}
	f, err := os.Open(figure)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("transitbench plot wrote no PNG: %v", err)
	}
}
