package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the sandbox child, as cmd/transitbench's main does.
func TestMain(m *testing.M) {
	if IsChild() {
		ChildMain()
	}
	os.Exit(m.Run())
}
