// Package rvgate grades RV-track submissions with Stargazer's four-criterion gate (SPEC B3) as the original code
// computes it: residual RMS ≤ 1.5 × median σ, ΔBIC per point against the offsets-only model > 0 (the original
// README says "ΔBIC > 10", its code tests ΔBIC/N > 0, and this package follows the code), the Hungarian-matched
// parameter score S ≥ 0.8 and the exact planet count. Beside the original it reports two other gates that
// differ only in the match: the strict one (S normalised by the number of true planets, as the original's paper
// recommends) and the calibrated one (every true planet matched with P, K and e within CalibratedSigmas of the
// Cramér–Rao uncertainties the data give at the truth, calibrated.go), which does not punish a fit for
// differences smaller than the data can resolve. It fixes the original's known defects: feedback carries pass or fail per
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
