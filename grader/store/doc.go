// Package store keeps TransitBench's results in an embedded SQLite database (modernc.org/sqlite, pure Go) in
// the data directory: every dev, grade, baseline and mini run with its summary, each star's outcome in a run
// (rows, matches, credit, false candidates, runtime, exit reason, stderr tail, isolation level), and the frozen
// solution snapshots with the sets each was graded on. Outcomes are written one star at a time as they
// finish, so an interrupted run resumes from the stars it already has; payloads the grader defines (rows,
// matches, summaries) are stored as JSON text, so the store does not depend on the grader's types and a
// maintainer can query the file with any SQLite client.
package store
