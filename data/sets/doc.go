// Package sets builds, stores and opens the benchmark's data sets (SPEC A2): dev (196 labelled stars), the hidden
// sets A and B (1,000 stars each), the train pool (any size) and sets imported from Kepler FITS files, plus the
// mini tasks of SPEC A8 drawn from the train and dev pools. A simulated set is a pure function of (generator
// version, set name, set seed): every star's seed is SHA-256(generator version, set name, set seed, index). Stars are
// not stored: the build runs the simulator once per star to record its answer, metadata and the SHA-256 digest of
// its star-directory bytes, and writes manifest.json, answers.json and stars.json under <home>/sets/<name>; a star's
// light curve is regenerated on demand from its seed (a small in-memory cache keeps the last few), and a regenerated
// star directory is checked against the recorded digest. This keeps dev + A + B at a few megabytes instead of the
// ≈ 1.3 GB their CSV files would take. Hidden sets take their seed from a secret file in the data directory and keep
// their answers there only, in 0700 directories and 0600 files.
package sets
