// Package sim simulates one Kepler-like year of long-cadence photometry for a star of a TransitBench data set:
// a Q2–Q5-like observing calendar with its gaps and quality flags, a star drawn from distributions fitted to
// real Kepler targets, instrumental and astrophysical noise in realistic mixtures, and the star's signal (an
// injected planet, an eclipsing binary, confirmed-like planets or a planted false alarm), together with the
// star's answer (SPEC A2–A4). A star is a pure function of its Spec and the Knobs: every ingredient draws from
// its own named random stream seeded by Spec.Seed, so output is bit-identical on every machine.
package sim
