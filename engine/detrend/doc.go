// Package detrend removes slow stellar and instrumental trends from a light curve while keeping transits:
// a time-windowed Tukey biweight location filter (the default of wotan, Hippke et al. 2019, AJ 158, 143)
// computed separately on each continuous segment of data, with iterative sigma clipping so that transits,
// flares and outliers do not pull the trend. The window is chosen from the longest transit duration searched
// (WindowFor); flattened flux is flux divided by trend, so a transit keeps its fractional depth. FlattenKnots
// computes the same location on a coarse grid of knots, for callers that detrend many light curves.
package detrend
