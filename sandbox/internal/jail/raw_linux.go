package jail

import (
	"syscall"
	"unsafe"
)

// The child's slow system calls (the mount family, whose lock other children may hold, and the names) are made
// raw: the runtime does not see them, so the one goroutine keeps its processor while the kernel works, and no
// other thread is started to take the processor over meanwhile (one thread more to start, and to stop again at
// the exec of the solution). The child has nothing else to run.

// rawMount is mount(2).
func rawMount(src, dst, fstype string, flags uintptr, data string) error {
	s, err := syscall.BytePtrFromString(src)
	if err != nil {
		return err
	}
	d, err := syscall.BytePtrFromString(dst)
	if err != nil {
		return err
	}
	t, err := syscall.BytePtrFromString(fstype)
	if err != nil {
		return err
	}
	var o *byte
	if data != "" {
		if o, err = syscall.BytePtrFromString(data); err != nil {
			return err
		}
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_MOUNT, uintptr(unsafe.Pointer(s)), uintptr(unsafe.Pointer(d)),
		uintptr(unsafe.Pointer(t)), flags, uintptr(unsafe.Pointer(o)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// rawUnmount is umount2(2).
func rawUnmount(dst string, flags uintptr) error {
	d, err := syscall.BytePtrFromString(dst)
	if err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_UMOUNT2, uintptr(unsafe.Pointer(d)), flags, 0); e != 0 {
		return e
	}
	return nil
}

// rawPivotRoot is pivot_root(2).
func rawPivotRoot(newRoot, putOld string) error {
	n, err := syscall.BytePtrFromString(newRoot)
	if err != nil {
		return err
	}
	o, err := syscall.BytePtrFromString(putOld)
	if err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PIVOT_ROOT, uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(o)), 0); e != 0 {
		return e
	}
	return nil
}

// rawSetName is sethostname(2) or setdomainname(2) (nr).
func rawSetName(nr uintptr, name string) error {
	b := []byte(name)
	if _, _, e := syscall.RawSyscall(nr, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0); e != 0 {
		return e
	}
	return nil
}
