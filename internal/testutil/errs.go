package testutil

import (
	"errors"
	"testing"
)

// CountErrors counts the calls of a concurrent test that succeeded (a nil error) and those refused with an
// error that is target (errors.Is); any other error fails the test.
func CountErrors(t testing.TB, errs []error, target error) (ok, refused int) {
	t.Helper()
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, target):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	return ok, refused
}
