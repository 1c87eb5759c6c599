// Package fold phase-folds a light curve on a trial ephemeris (period and mid-transit time) and bins the
// folded flux, for plots, vetting and transit-shape statistics; it also numbers transit epochs so callers can
// split odd from even transits.
package fold
