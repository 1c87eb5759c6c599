// Package transit models the light of a star crossed by a dark, opaque disk: the exact Mandel & Agol (2002)
// flux of a quadratically limb-darkened star occulted by a planet (or a companion star) of radius ratio p at
// projected separation z, a light-curve evaluator for circular orbits averaged over the Kepler long-cadence
// exposure, the physical relations that tie a transit's duration to the star's mass and radius (Kepler's third
// law, T14, inclination from the impact parameter), and a coarse Kepler-band limb-darkening table. All lengths
// are in stellar radii and all times in days.
package transit
