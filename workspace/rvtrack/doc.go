// Package rvtrack runs the RV track (Stargazer, SPEC Part B) for a contestant, as package workspace runs the
// transit track: the submission ledger that enforces the tier budgets (Ledger, WithLedger, OpenLedger, Submit;
// <home>/rv/submissions.json under data.LockFile), the sandboxed runner of a contestant's solution over tasks
// (RunSolution: one sandbox run per task, its tier's seconds as wall time, stdout graded by the gate) and the
// per-tier reports of such runs (TaskOutcome, TierSummary, Summarize). The grading itself — the gate, the
// submission format and the contestant's feedback — is package grader/rvgate, which runs no code.
package rvtrack
