// Package quicklook is the star analysis every front end shows: the terminal UI's star view, the plot command,
// the bls, vet and fold commands, the agent server and the results site. Prepare masks the flagged cadences
// and detrends the rest for the longest duration searched for the star (MaxDurationDays); Analyse adds the
// quick-look BLS search (a coarse periodogram whose strongest peaks are refined on the unbinned light curve);
// (*Analysis).BLS runs that search or an explicit grid (SearchOptions); FindPlanets finds planets one after
// another, stopping on the measured MES (DefaultMinMES) and reporting few-transit events as single events.
// Every signal reported (a peak, a planet, a solution's row, the truth, a typed-in ephemeris) is measured one
// way, Measure (engine/vet.Measure: re-detrended with its transits and the star's other found signals masked,
// at the fitted T14), and its statistics are shown first in the order of Stats, the box statistics last.
// FoldAt folds the measured flux at an Ephemeris (Row, Truth, Peak) into the whole fold, the odd and even
// transits and the secondary fold. Star reads a star of a data set and analyses it.
//
// The package draws nothing and keeps no state: every function is safe for concurrent use, and the same light
// curve gives the same analysis (the search's worker count changes only how fast it runs). Star refuses the
// stars of hidden sets (workspace.ErrHiddenStar), so a front end that goes through it cannot show them.
package quicklook
