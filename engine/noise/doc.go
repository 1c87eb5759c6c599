// Package noise measures how well a light curve can show a transit: σ_D, the scatter of the mean of the
// detrended flux over windows of a transit's duration (robust, from valid cadences only), the CDPP in ppm
// built on it, and the multiple-event statistic of SPEC A4, MES = (mean in-transit depth of the model) / σ_D ·
// √N, with the helpers a simulator needs to set a depth that achieves a target MES: the number of transits
// with data, the mean in-transit depth of a model, and RpRsForMES, which sizes a transit model to a target MES.
package noise
