//go:build linux || darwin

package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"

	"transitbench/sandbox/internal/jail"
)

// childEnviron is a sandbox child's whole environment: the mark of a child (its configuration comes through the
// gate, see sendConfig), and for its Go runtime one thread for one goroutine, no collector for the little it
// allocates (fewer threads to start) and no preemption signals, which would only interrupt its waits at the
// gate (it runs one goroutine). The solution gets its own environment, childConfig.Env.
func childEnviron() []string {
	return []string{childEnv + "=1", "GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1"}
}

// sendConfig hands the child waiting at its gate its configuration (jail.MarshalConfig) after its length (4
// bytes, little-endian): the child then builds the sandbox's root and waits at the gate again, for openGate.
func sendConfig(gateW *os.File, cfg childConfig) error {
	cfg.Sys = jailSyscalls
	js := jail.MarshalConfig(&cfg)
	msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(js)), uint32(len(js)))
	if _, err := gateW.Write(append(msg, js...)); err != nil {
		return fmt.Errorf("handing the child its configuration: %w", err)
	}
	return nil
}

// openGate tells the child that its star's files are ready (one byte) and closes the gate: the child then
// copies them in, takes its limits, user and filter and executes the solution.
func openGate(gateW *os.File) error {
	defer gateW.Close()
	if _, err := gateW.Write([]byte{1}); err != nil {
		return fmt.Errorf("opening the child's gate: %w", err)
	}
	return nil
}
