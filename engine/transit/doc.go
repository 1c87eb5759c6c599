// Package transit models the light of a star crossed by an opaque disk: the exact Mandel & Agol (2002) flux
// of a quadratically limb-darkened star occulted by a planet (or a companion star) of radius ratio p at
// projected separation z; light-curve evaluators for a planet and for an eclipsing binary on circular orbits,
// averaged over the Kepler long-cadence exposure; the physical relations that tie a transit's duration to the
// star's mass and radius (Kepler's third law, T14, T23, inclination from the impact parameter, density); and a
// coarse Kepler-band limb-darkening table. Lengths are in stellar radii and times in days.
package transit
