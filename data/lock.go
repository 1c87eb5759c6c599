package data

import "errors"

// ErrLocked is TryLockFile's answer when another holder has the lock.
var ErrLocked = errors.New("data: locked")
