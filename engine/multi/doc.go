// Package multi finds the planets of a multi-planet system one after another: it masks the transits of known
// planets (period, mid-transit time, window) before a BLS search, and iterates — search, fit the best peak's
// T14 with a trapezoid (engine/vet.FitTrapezoid), mask its transits over a window of a few T14, search again —
// until it has the planets asked for or the best peak falls below a detection threshold. The search itself is
// the caller's (a function of the masked flux), so the command line's full search and the star view's fast one
// share the iteration.
package multi
