// Package rv grades RV-track submissions with Stargazer's four-criterion gate (SPEC B3): residual RMS against
// the quoted errors, ΔBIC per point against the offsets-only model, the Hungarian-matched parameter score
// (plus the stricter variant normalised by the number of true planets) and the planet count. It also checks the
// truth itself against the gate, phrases per-criterion feedback that never reveals the truth, and keeps the
// per-task submission ledger that enforces the tier budgets.
package rv
