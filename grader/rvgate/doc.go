// Package rvgate grades RV-track submissions with Stargazer's four-criterion gate (SPEC B3) as the original code
// computes it: residual RMS ≤ 1.5 × median σ, ΔBIC per point against the offsets-only model > 0 (the original
// README says "ΔBIC > 10", its code tests ΔBIC/N > 0, and this package follows the code), the Hungarian-matched
// parameter score S ≥ 0.8 (with the stricter variant normalised by the number of true planets reported beside
// it) and the exact planet count. It fixes the original's known defects: feedback carries pass or fail per
// criterion and the submission's own scalars only, never per-pair differences or unmatched-truth lists;
// submissions may have any e < 1 (the original clipped at 0.8 while truths reach 0.9); the truth of every task
// is itself run through the gate so pass rates can be given on truth-solvable tasks; and real tasks get a fair
// RMS criterion (threshold raised to the published solution's own RMS) beside the original. Its
// BudgetStatus and StatusAt say where a task stands against its tier's time and token budgets.
//
// The package runs no code and touches no file: it imports neither the sandbox nor the data directory. The
// submission ledger that enforces the budgets and the sandboxed solution runner are in workspace/rvtrack; the
// reference pipelines run over task sets in workspace/rvbaselines.
package rvgate
