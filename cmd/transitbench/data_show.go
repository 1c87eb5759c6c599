package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

// dataShowOptions are the inputs of 'transitbench data show'.
type dataShowOptions struct {
	Set  string // --set: the set
	Star string // --star: the star's id
}

// dataShowResult is the JSON output of 'data show': the set, whether it is hidden, the star's metadata
// (sets.StarInfo) and, for public sets only, its answer (data.Answer).
type dataShowResult struct {
	Set    string        `json:"set"`
	Hidden bool          `json:"hidden"`
	Info   sets.StarInfo `json:"info"`
	Answer *data.Answer  `json:"answer,omitempty"`
}

func newDataShowCmd() *cobra.Command {
	opts := &dataShowOptions{}
	cmd := &cobra.Command{
		Use:   "show --set NAME --star ID",
		Short: "Show one star's metadata (and its answer, for public sets)",
		Long: `Show one star's metadata: star.json's content, its cadences and valid cadences, its digest (and KIC
for imported sets). The answer is shown for public sets only; a hidden set's answers stay in the data directory.

--json prints {"set", "hidden", "info": {"id", "index", "star", "cadences", "valid_cadences", "digest", "kic"},
"answer"} with "answer" (data.Answer) left out for hidden sets.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataShow, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "set name")
	cmd.Flags().StringVar(&opts.Star, "star", "", "star id, e.g. dev-0042")
	return cmd
}

// runDataShow prints one star's metadata, and its answer when the set is public.
func runDataShow(ctx context.Context, s streams, opts *dataShowOptions) error {
	if opts.Star == "" {
		return usageErrorf("give --star ID (e.g. --star dev-0042)")
	}
	set, err := openSetForCmd(ctx, s.Err, opts.Set)
	if err != nil {
		return err
	}
	info, err := set.Info(opts.Star)
	if err != nil {
		return notFoundf("%v", err)
	}
	res := dataShowResult{Set: set.Name, Hidden: set.Hidden(), Info: info}
	if !set.Hidden() {
		a := set.Answers[opts.Star]
		res.Answer = &a
	}
	if s.JSON {
		return writeJSON(s.Out, res)
	}
	printStar(s.Out, res)
	return nil
}

// printStar prints 'data show' for people.
func printStar(w io.Writer, r dataShowResult) {
	st := r.Info.Star
	fmt.Fprintf(w, "star %s of set %s\n", r.Info.ID, r.Set)
	if r.Info.KIC != 0 {
		fmt.Fprintf(w, "KIC          %d\n", r.Info.KIC)
	}
	fmt.Fprintf(w, "Kp %.2f  Teff %.0f K  logg %.2f  R %.2f Rsun  M %.2f Msun\n", st.Kepmag, st.Teff, st.Logg,
		st.RadiusRsun, st.MassMsun)
	fmt.Fprintf(w, "CDPP         3 h %.0f ppm, 6 h %.0f ppm, 12 h %.0f ppm\n", st.CDPPppm["3.0"], st.CDPPppm["6.0"],
		st.CDPPppm["12.0"])
	fmt.Fprintf(w, "cadences     %d (%d valid)\n", r.Info.Cadences, r.Info.ValidCadences)
	if r.Answer == nil {
		fmt.Fprintln(w, "answer       hidden (the set is a grading set)")
		return
	}
	a := r.Answer
	pop := ""
	if a.Population != "" {
		pop = ", " + strings.ReplaceAll(a.Population, "_", "-") + " population"
	}
	fmt.Fprintf(w, "answer       %s%s, scored %v\n", a.Category, pop, a.Scored)
	printPlanet := func(label string, p data.Planet) {
		fmt.Fprintf(w, "%-12s P %.5f d  t0 %.4f  T14 %.2f h  depth %.0f ppm  Rp/R* %.4f  b %.2f  MES %.1f  %d transits\n",
			label, p.PeriodDays, p.T0Days, 24*p.DurationDays, 1e6*p.Depth, p.RpRs, p.B, p.MES, p.NTransits)
	}
	if a.Planet != nil {
		printPlanet("planet", *a.Planet)
	}
	for i, p := range a.Confirmed {
		printPlanet(fmt.Sprintf("confirmed %d", i+1), p)
	}
	if e := a.EB; e != nil {
		fmt.Fprintf(w, "eb           %s, P %.5f d  t0 %.4f  primary %.0f ppm / %.2f h  secondary %.0f ppm / %.2f h at phase %.3f\n",
			e.Morphology, e.PeriodDays, e.T0Days, 1e6*e.PrimaryDepth, 24*e.PrimaryDurationDays, 1e6*e.SecondaryDepth,
			24*e.SecondaryDurationDays, e.SecondaryPhase)
		fmt.Fprintf(w, "             counted %v  giveaway %s\n", e.Counted, strings.Join(e.Giveaway, ", "))
	}
	if f := a.FalseAlarm; f != nil {
		fmt.Fprintf(w, "false alarm  %s", f.Kind)
		if f.PeriodDays > 0 {
			fmt.Fprintf(w, ", P %.5f d  t0 %.4f", f.PeriodDays, f.T0Days)
		}
		fmt.Fprintln(w)
	}
}
