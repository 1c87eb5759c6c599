// Package testutil holds the helpers that the tests of several packages share: writing a CSV light curve, a
// solution folder or a solution's run script, measuring a benchmark's CPU time, and counting the outcomes of
// concurrent calls. It imports nothing of the project, so that the tests of any package (engine and sandbox
// included) can use it without an import cycle, and only _test.go files may import it: internal/archtest checks
// both.
package testutil
