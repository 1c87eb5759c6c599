// Package vet computes the statistics that tell a transiting planet from the signals that mimic one, for a
// candidate ephemeris (period, mid-transit time, duration) on a detrended light curve: the depth and its error,
// the number of transits with data, the odd/even depth difference, the strongest secondary eclipse at the same
// period, the transit's shape (a trapezoid's ingress fraction), the share of the signal carried by the
// strongest single event, and the consistency of the duration with the star's density. A pipeline's vetter,
// the learned vetter's features and the terminal UI's star view all read them from one Features value.
package vet
