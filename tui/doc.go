// Package tui is the full-screen terminal interface over the engine, data, grader and workspace packages: a star
// browser, the star view with its light-curve, periodogram, candidates and folded panels, the dev run and grade
// screens, and the RV track's task browser and task view. Every screen implements the screen interface (screen.go:
// Update, View, SetSize, Keys, Enter, Capturing, RunKeys); the root model (ui.go) owns one of each, handles the
// global keys once (ctrl+c; q and ? unless the screen is taking text; d and g on the transit screens), and passes
// every other key, and every message not addressed to another screen, to the active one. Screens ask the root to
// switch with showMsg and backMsg. context.go holds the ProgramContext every screen shares; styles.go and keys.go
// the styles (every colour of the transit screens) and key bindings (the help bars, short and full, are generated
// from them, each screen listing its own bindings before the global ones); backend.go the Backend interface the
// screens use and Real, its implementation over the real packages. The star analysis is workspace/quicklook's: the
// screens only draw it. All I/O and analysis run in tea.Cmds returning typed messages; runs stream one message per
// finished star (run.go). The plots are drawn by the pure functions of workspace/chart. Hidden stars are never opened
// (Real.LoadStar refuses them) and a grading shows, for A and B, the count of stars done and then the aggregates
// only. Nothing imports tui but the command.
package tui
