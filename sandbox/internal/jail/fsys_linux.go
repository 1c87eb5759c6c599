package jail

import "syscall"

// The child's file operations, with the syscall package alone (see format.go): what it needs of os.Mkdir,
// os.MkdirAll, os.Lstat, os.Stat, os.Readlink and os.Symlink, with the same errors ("op path: reason").

// mkdir makes the directory p (mode 0755).
func mkdir(p string) error {
	if err := syscall.Mkdir(p, 0o755); err != nil {
		return pathError("mkdir", p, err)
	}
	return nil
}

// mkdirAll makes the directory p and the missing ones above it (mode 0755).
func mkdirAll(p string) error {
	if mode, err := fileMode(p, true); err == nil {
		if mode != syscall.S_IFDIR {
			return pathError("mkdir", p, syscall.ENOTDIR)
		}
		return nil
	}
	i := len(p)
	for i > 0 && p[i-1] == '/' {
		i--
	}
	for i > 0 && p[i-1] != '/' {
		i--
	}
	for i > 1 && p[i-1] == '/' {
		i--
	}
	if parent := p[:i]; parent != "" && parent != "/" {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := syscall.Mkdir(p, 0o755); err != nil && err != syscall.EEXIST {
		return pathError("mkdir", p, err)
	}
	return nil
}

// fileMode is the type of the file p (its mode's syscall.S_IFMT bits), following a final symbolic link when
// follow is set.
func fileMode(p string, follow bool) (uint32, error) {
	var st syscall.Stat_t
	var err error
	if follow {
		err = syscall.Stat(p, &st)
	} else {
		err = syscall.Lstat(p, &st)
	}
	if err != nil {
		op := "lstat"
		if follow {
			op = "stat"
		}
		return 0, pathError(op, p, err)
	}
	return st.Mode & syscall.S_IFMT, nil
}

// readlink is the target of the symbolic link p.
func readlink(p string) (string, error) {
	for size := 256; ; size *= 2 {
		b := make([]byte, size)
		n, err := syscall.Readlink(p, b)
		if err != nil {
			return "", pathError("readlink", p, err)
		}
		if n < size {
			return string(b[:n]), nil
		}
	}
}

// symlink makes the symbolic link p to target.
func symlink(target, p string) error {
	if err := syscall.Symlink(target, p); err != nil {
		return errorf("symlink %s %s: %w", target, p, err)
	}
	return nil
}
