//go:build linux || darwin

package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"

	"transitbench/sandbox/internal/jail"
)

// childEnviron is a sandbox child's whole environment: the mark of a child (its configuration comes through the
// gate, see openGate), and for its Go runtime one thread for one goroutine and no collector for the little it
// allocates (fewer threads to start). The solution gets its own environment, childConfig.Env.
func childEnviron() []string {
	return []string{childEnv + "=1", "GOMAXPROCS=1", "GOGC=off"}
}

// openGate hands the child waiting at its gate its configuration (jail.MarshalConfig) after its length (4 bytes,
// little-endian), and closes the gate: the child then sets up the sandbox and executes the solution.
func openGate(gateW *os.File, cfg childConfig) error {
	defer gateW.Close()
	cfg.Sys = jailSyscalls
	js := jail.MarshalConfig(&cfg)
	msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(js)), uint32(len(js)))
	if _, err := gateW.Write(append(msg, js...)); err != nil {
		return fmt.Errorf("opening the child's gate: %w", err)
	}
	return nil
}
