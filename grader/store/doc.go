// Package store keeps TransitBench's results in an embedded SQLite database (modernc.org/sqlite, pure Go) in
// the data directory: every dev, grade, baseline and mini run with its summary, each star's outcome in a run
// (rows, matches, credit, false candidates, runtime, exit reason, stderr tail, isolation level), and the frozen
// solution snapshots with the sets each was graded on. Outcomes are written one star at a time as they
// finish, so an interrupted run resumes from the stars it already has; payloads the grader defines (rows,
// matches, summaries) are stored as JSON text, so the store does not depend on the grader's types and a
// maintainer can query the file with any SQLite client.
//
// Hidden sets stay hidden (SPEC A8). A run on a hidden set (Run.Hidden) keeps no per-star outcome at all: no
// star ID next to an outcome, no truth, no rows, no stdout or stderr. The star IDs of the hidden sets are
// stable, so even "A-0123 was missed" (it holds a planet) or "A-0123 is in MES bin 10–20" would leak; what a
// hidden run keeps is its summary (the aggregates: S, C, F, EB share, the breakdowns by population, MES bin
// and category, counts by exit reason, the slowest runtimes without star IDs). While it is unfinished it also
// keeps, per finished star, the resume state the caller gives (PutHiddenOutcome): sealed with AES-256-GCM
// under a key derived from the key file beside the database (KeyFileName, 0600) and the run ID, filed under an
// HMAC of the star ID in a table without row IDs or timestamps, and deleted when the run is done. Without the
// key the file shows neither which star a state belongs to nor what it says; with it one could read no more
// than the secret seed in the same directory already gives. The database, its log and its index are 0600;
// deleted records are overwritten (secure_delete), and opening a database of an older schema deletes the
// outcomes of its hidden runs, then rewrites the file (VACUUM) so none of their bytes remain.
//
// Gradings are numbered per workspace (Run.Grading, NextGrading): every grading of any solution, re-gradings
// included, so a leaderboard can show first gradings.
package store
