package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// StarterExpert names the expert starter (InitOptions.Starter, 'transitbench init --starter expert').
const StarterExpert = "expert"

// expertRun is the expert starter's run script: the sandbox runs it with the star directory as its argument,
// and it execs the copy of transitbench beside it on that star.
const expertRun = `#!/bin/sh
# The expert pipeline (transitbench's 'expert' ladder row) on one star: an iterative BLS search on the
# transit-keeping detrending of the cleaned light curve, each signal measured with the others masked, binary
# giveaways dropped by rule, the rest scored by the classifier trained on the train pool, rows printed when
# their probability of being a counted planet is above 1/2 (SPEC A5's break-even). See README.md. Edit freely:
# filter or rescore the rows, or replace the line below with your own program.
exec "$(dirname "$0")/bin/transitbench" pipeline expert "$1"
`

// expertReadme is the expert starter's README.md.
const expertReadme = `# The expert starter

` + "`run`" + ` execs ` + "`bin/transitbench pipeline expert STAR_DIR`" + `: the expert pipeline of the baseline ladder
(README, "The baseline ladder"), the best honest solution this program knows. It reads only its star
(lightcurve.csv and star.json), prints ` + "`period_days,t0_days,score`" + ` rows, and runs inside the sandbox like
any solution: one core, 60 s, no network.

What it does, in order (engine/pipeline/expert.go):

1. Detrends with a biweight window three times the longest transit the star's catalogue density allows.
2. Searches iteratively: the strongest BLS peak that is not one deep event is a signal; its transits are
   masked and the search runs again, until the peak's SNR is under 6 or five signals are out. A peak within
   5 % of a found signal's period is that signal's residue and is skipped.
3. Measures each signal with the others masked (re-detrended, trapezoid fit, odd/even, secondary, shape,
   single events). A signal with a binary's giveaway is dropped by rule: a transit implying Rp/R★ > 0.3, a
   secondary eclipse of MES ≥ 7.1 at least a tenth of the transit's depth, or odd and even transits 5σ apart.
   The others are scored by a gradient-boosted classifier trained on the train pool with catalogue-error
   stellar parameters ('transitbench baselines train-vetter --pipeline expert').
4. Prints the signals whose probability p is above 1/2: a row adds p − (1 − p) to the expected credit minus
   false candidates.

` + "`bin/transitbench`" + ` is a copy of the program that made this workspace. Other engine commands work the
same way inside the sandbox (` + "`bin/transitbench bls`" + `, ` + "`vet`" + `, ` + "`fold`" + `; see their --help) if you want to
build your own pipeline from its parts.
`

// WriteExpertStarter writes the expert starter into dir: the run script, README.md and a copy of the
// transitbench program binary (default os.Executable()) as bin/transitbench, so that the solution runs the same
// on any machine that grades it.
func WriteExpertStarter(dir, binary string) error {
	if binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("workspace: cannot find this program's executable for the expert starter (%w)", err)
		}
		binary = exe
	}
	bin, err := filepath.EvalSymlinks(binary)
	if err != nil {
		return fmt.Errorf("workspace: the expert starter's program: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	if err := CopyFile(bin, filepath.Join(dir, "bin", "transitbench"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(expertReadme), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "run"), []byte(expertRun), 0o755)
}
