//go:build linux || darwin

package jail

import (
	"syscall"
	"unsafe"
)

// maxConfigBytes bounds the configuration the child reads from its gate.
const maxConfigBytes = 16 << 20

// ReadConfig waits at the gate until the runner has placed the child in its cgroup and hands it its
// configuration: MarshalConfig's bytes after their length (4 bytes, little-endian). A gate that closes before
// the whole of it means the runner died or dropped the child: the child exits rather than run outside its
// cgroup. The gate stays open for WaitGate.
func ReadConfig(cfg *Config) error {
	var n [4]byte
	if !readGate(n[:]) {
		syscall.Exit(127)
	}
	size := le32(n[:])
	if size > maxConfigBytes {
		return errorf("reading the sandbox configuration: %d bytes", size)
	}
	js := make([]byte, size)
	if !readGate(js) {
		syscall.Exit(127)
	}
	if err := UnmarshalConfig(js, cfg); err != nil {
		return errorf("reading the sandbox configuration: %w", err)
	}
	return nil
}

// WaitGate waits at the gate for its second opening, one byte that says the star's files are ready, and closes
// it. A gate that closes without it means the runner dropped the child (its star did not come, or the runner
// died): the child exits.
func WaitGate() {
	var b [1]byte
	if !readGate(b[:]) {
		syscall.Exit(127)
	}
	syscall.Close(GateFD)
}

// readGate fills b from the gate; false when the gate closed (or failed) first. Its reads are raw system calls,
// which the runtime does not see: the goroutine keeps its thread and processor while it waits, so that no other
// thread is started to take them over, and none has to hand them back when the gate opens.
func readGate(b []byte) bool {
	for len(b) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, GateFD, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || n == 0 {
			return false
		}
		b = b[n:]
	}
	return true
}
