// Package report is the results site: a leaderboard of every grading beside the baseline ladder and
// TransitBench's published values, a page per run (its score, breakdowns by population, MES bin and category,
// outcomes by exit reason and runtimes; a dev run's stars), a page per dev star (the terminal UI's star view as
// SVG figures drawn by workspace/figure from workspace/quicklook's analysis, the rows with their match status,
// the solution's stderr), comparisons of two runs and the RV track's runs. Build writes it as static HTML that
// opens from the file system (every style, script and figure inline); Site.Handler serves the same pages live
// from the results store. Hidden sets stay hidden (SPEC A8): their runs show aggregates only and no page names
// a hidden star.
package report
