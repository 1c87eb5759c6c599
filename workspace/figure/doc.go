// Package figure draws a star's quick-look analysis (workspace/quicklook) as a figure for people outside the
// terminal: the raw light curve with flagged cadences, the detrended light curve with the folded ephemeris's
// transits marked, the BLS periodogram with its strongest peaks, and the light curve folded at the truth or a
// peak with binned means. It is the terminal UI's star view drawn with gonum/plot, as PNG (`transitbench plot`,
// the agent server's images) or SVG (the results site), sharing the UI's robust ranges and ticks
// (workspace/chart). WriteRV draws an RV task the same way (workspace/rvtrack's analysis: the velocities by
// instrument with the model curve, the residuals, the GLS periodogram). It takes an analysis already made and
// writes to an io.Writer: it opens no file.
package figure
