// Package tui is the full-screen terminal interface over the engine, data, grader and workspace packages: a star
// browser, the star view with its light-curve, periodogram, candidates and folded panels, the dev run and grade
// screens. ui.go holds the root model (a state enum routing to the child models in browser.go, starview.go,
// devrun.go and grade.go); context.go the ProgramContext every screen shares; styles.go and keys.go the styles
// and key bindings (the help bars are generated from them); backend.go the Backend interface the screens use and
// Real, its implementation over the real packages. All I/O and analysis run in tea.Cmds returning typed
// messages; runs stream one message per finished star (run.go). The plots are drawn by the pure functions of
// tui/plot. Hidden stars are never opened (Real.LoadStar refuses them) and a grading shows, for A and B, the
// count of stars done and then the aggregates only. Nothing imports tui but the command.
package tui
