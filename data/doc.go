// Package data reads and writes the formats TransitBench uses (Kepler FITS light curves, IPAC tables, the star
// directory of SPEC A1, plain CSV, Stargazer task JSON), simulates Kepler-year light curves, and builds the
// benchmark's data sets with their answers.
package data
