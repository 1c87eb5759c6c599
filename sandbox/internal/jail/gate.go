//go:build linux || darwin

package jail

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
)

// maxConfigBytes bounds the configuration the child reads from its gate.
const maxConfigBytes = 16 << 20

// ReadConfig waits at the gate until the runner has placed the child in its cgroup and hands it its
// configuration: MarshalConfig's bytes after their length (4 bytes, little-endian). A gate that closes before the whole of it
// means the runner died or dropped the child: the child exits rather than run outside its cgroup.
func ReadConfig(cfg *Config) error {
	var n [4]byte
	if !readGate(n[:]) {
		os.Exit(127)
	}
	size := binary.LittleEndian.Uint32(n[:])
	if size > maxConfigBytes {
		return fmt.Errorf("reading the sandbox configuration: %d bytes", size)
	}
	js := make([]byte, size)
	if !readGate(js) {
		os.Exit(127)
	}
	syscall.Close(GateFD)
	if err := UnmarshalConfig(js, cfg); err != nil {
		return fmt.Errorf("reading the sandbox configuration: %w", err)
	}
	return nil
}

// readGate fills b from the gate; false when the gate closed (or failed) first.
func readGate(b []byte) bool {
	for len(b) > 0 {
		n, err := syscall.Read(GateFD, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b = b[n:]
	}
	return true
}
