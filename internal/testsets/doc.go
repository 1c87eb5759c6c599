// Package testsets holds the test fixtures that need the data sets: building small sets of given
// compositions and collecting their answers, the run script of a solution that answers a star by its id (an
// oracle printing the truth), and HD 164922's published RV series from the shared data folder. It imports only
// engine and data, and only _test.go files may import it: internal/archtest checks both.
package testsets
