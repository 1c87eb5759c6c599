// Package testsets holds the test fixtures that need the data sets: building small sets of given
// compositions and collecting their answers, and the run script of a solution that answers a star by its id
// (an oracle printing the truth). It imports only engine and data, and only _test.go files may import it:
// internal/archtest checks both.
package testsets
