// Package quicklook is the star analysis every front end shows: the terminal UI's star view, the plot command's
// figure, and any other reader of a light curve (an agent server, a static report). Analyse masks the flagged
// cadences, detrends (engine/detrend), and runs a fast BLS search (engine/bls) whose strongest peaks are refined
// on the unbinned light curve; FoldAt folds the detrended light curve at an Ephemeris (a solution's row, the
// truth or a BLS peak, see Row, Truth and Peak) into the whole fold, the odd and even transits, the secondary
// fold and the vetting features (engine/vet). Star reads a star of a data set and analyses it.
//
// The package draws nothing and keeps no state: every function is safe for concurrent use, and the same light
// curve gives the same analysis (the search's worker count changes only how fast it runs). Star refuses the
// stars of hidden sets (workspace.ErrHiddenStar), so a front end that goes through it cannot show them.
package quicklook
