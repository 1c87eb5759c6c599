// Package bls is the box least squares transit search (Kovács, Zucker & Mazeh 2002) in the form of astropy's
// BoxLeastSquares: for each trial period the data are folded into fine phase bins, prefix sums of the weighted
// flux and weights give every box (start phase, duration) in constant time, and each box is scored by the
// signal-to-noise of its depth or by its log likelihood, dips only. It provides the default period grid
// (Ofir 2014 optimal frequency sampling) with physically bounded durations, explicit grids for comparisons,
// the periodogram, and the strongest distinct peaks with aliases and harmonics of stronger peaks removed.
//
// On amd64 processors with AVX2 the fold and the first screening of boxes run in assembly, and with AVX-512
// also the prefix sums, with the screen taking eight boxes at a time; the build tag purego selects their Go
// versions, which give the same periodogram.
package bls
