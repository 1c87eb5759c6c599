// Package chart holds the pure text-chart functions of every front end, the terminal UI first: honest
// downsampling of long series to screen columns (the minimum and maximum of each column, so a one-cadence dip
// stays visible), a braille canvas (2×4 dots per terminal cell), linear and logarithmic scales with round tick
// values, the composed charts of the star view (light curve, periodogram, folded transit), and the robust
// ranges and ticks that the figures of workspace/figure share with them. Nothing here does I/O or knows about
// bubbletea; every function returns plain lines that the caller may colour.
package chart
