// Package sets builds, stores and opens the benchmark's data sets (SPEC A2): dev (196 labelled stars), the hidden
// sets A and B (1,000 stars each), the train pool (any size, 2,000 by default, in A's proportions) and sets
// imported from Kepler FITS files, plus the mini tasks of SPEC A8 drawn from the train and dev pools. A simulated
// set is a pure function of (generator version, set name, set seed): star i's seed is SHA-256 over (generator
// version, set name, set seed, i), so sets of different names share no star, and the order of categories is a
// seeded shuffle, so ids (dev-0042, A-0007, train-000123) reveal nothing. Dev and train use the public PublicSeed;
// A and B a secret seed kept in <home>/secret.seed (mode 0600, drawn from crypto/rand at their first build), and
// their manifests record only a check of it, so a missing or replaced seed is noticed and explained. Stars are not
// stored: a build runs the simulator once per star, in parallel, recording its answer, metadata and the SHA-256
// digest of its star-directory bytes in manifest.json, answers.json and stars.json under <home>/sets/<name> (≈ 0.8 KB
// a star, against ≈ 0.6 MB for its CSV), and a star is regenerated from its seed when asked for, checked against its
// digest, with the last few kept in memory. The set's fingerprint hashes every star's digest in id order. Builds
// run in <home>/sets/.build-<name> with a journal of finished stars, take a file lock, and are renamed into place
// when complete, so an interrupted build is continued by the next one. Hidden sets live in 0700 directories and
// 0600 files and their answers never leave the data directory.
package sets
