// Package stargazer reads and writes the RV track's tasks (the Stargazer benchmark's task JSON), applies the
// load-time conversion that makes a synthetic task's truth an exact analytic Keplerian, assigns tiers and
// budgets, recomputes the original difficulty score, finds the published task folder, and generates new
// synthetic tasks from a seed with the original priors. A Task carries its truth; View is what a contestant
// may see.
package stargazer
