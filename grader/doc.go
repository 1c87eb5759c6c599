// Package grader matches a solution's candidate rows against the answers and scores them (SPEC A5), gates
// radial-velocity submissions (SPEC B3), and keeps the results store: runs, per-star outcomes and frozen snapshots.
package grader
