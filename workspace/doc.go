// Package workspace manages the contestant's box: TASK.md, the labelled dev stars, the solution and its state;
// it runs the dev loop, freezes a solution by content hash and grades the frozen copy once on the hidden sets.
// Hidden sets stay hidden (SPEC A8): a run on one keeps and reports aggregates only, discards the solution's
// output on its stars once matched, and resumes from sealed per-star contributions (see runner.keep). Every
// grading of a workspace is numbered; an interrupted one resumes under its number, and a run is held by one
// process at a time (ErrRunBusy).
package workspace
