// Package tui is the full-screen terminal interface over the engine, data, grader and workspace packages: a star
// browser, the star view with its light-curve, periodogram, folded and candidate panels, the dev run and grade
// screens, and the RV task screens. Nothing imports tui.
package tui
