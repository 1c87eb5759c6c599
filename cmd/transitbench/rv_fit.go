package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
)

// rvFitOptions are the inputs of 'rv fit'. Its --json output is rvgate.Submission ({"planets": [...],
// "jitter_ms"} in the K_ms, M0_rad form), which 'rv submit --planets -' reads back.
type rvFitOptions struct {
	rvCommon
	Task     string // the task id (argument)
	Pipeline string // --pipeline: a key of rvSolvers ("": honest for an imported task, classical otherwise)
}

// newRVFitCmd builds the command; runF, when not nil, replaces runRVFit (tests check the options the flags
// produce with it).
func newRVFitCmd(common *rvCommon, runF func(context.Context, rvFitOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "fit TASK", Args: cobra.ExactArgs(1),
		Short: "Fit a task's data with a reference pipeline and print the planets as a submission",
		Long: `Fit a task's data with a reference pipeline (it sees only the data and the star mass) and print the
planets in the submission format, ready for 'rv submit TASK --planets -'. No submission is spent. The fit
shows what the data say, so the task must have started ('rv start TASK'); an imported task needs no start.
The default pipeline
is honest for imported tasks (tier user) and classical for the others; honest also prints each instrument's
offset and jitter and, for each step of its search, the strongest residual peak, its false-alarm
probabilities and whether a planet (or the stellar-activity term) was added. The text output names the
pipeline and, when --pipeline did not choose it, says that it is the default.

JSON: {"planets": [{"P_days", "K_ms", "e", "omega_rad", "M0_rad"}], "jitter_ms"}; the honest pipeline adds
"instruments": [{"name", "points", "offset_ms", "jitter_ms"}] (its per-instrument terms; the gate does not
grade them and takes the single jitter_ms, the one of greatest likelihood for the planets).`,
	}, runF, runRVFit, func(o *rvFitOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Task = common.at(cmd), args[0]
	})
	c.Flags().StringVar(&opts.Pipeline, "pipeline", "", "pipeline to run (default: honest for imported tasks, else classical)")
	return c
}

// runRVFit fits the data of task opts.Task (which must have started) with pipeline opts.Pipeline and prints the
// planets.
func runRVFit(_ context.Context, opts rvFitOptions, out io.Writer) error {
	if _, ok := rvInteractive[opts.Pipeline]; ok {
		return usageErrorf("pipeline %q submits several times and reads the gate's feedback on each, which needs the truth: run it with 'rv baseline %s', or fit with one of %v", opts.Pipeline, opts.Pipeline, solverNames())
	}
	if _, ok := rvSolvers[opts.Pipeline]; !ok && opts.Pipeline != "" {
		return usageErrorf("unknown pipeline %q: choose one of %v", opts.Pipeline, solverNames())
	}
	t, err := opts.findTask(opts.Task)
	if err != nil {
		return err
	}
	pipeline, label := opts.Pipeline, opts.Pipeline
	if pipeline == "" {
		pipeline, label = "classical", "classical, the default for published tasks"
		if t.Imported {
			pipeline, label = "honest", "honest, the default for imported data"
		}
	}
	if err := opts.requireStarted(t); err != nil {
		return err
	}
	d := t.Data()
	var planets []rv.Planet
	var jit float64
	var honest *rv.HonestResult
	if pipeline == "honest" {
		honest = rv.Honest(d, rv.HonestOptions{})
		planets, jit = honest.Planets, rv.BestJitter(d, honest.Planets)
	} else {
		planets, jit = rvSolvers[pipeline](d, t.Config.Star.MStarSun, 0)
	}
	sub := rvgate.FromPlanets(planets, jit)
	if honest != nil {
		sub.Instruments = instrumentFits(d, honest)
	}
	if opts.JSON {
		return writeJSON(out, sub)
	}
	m := rvgate.Metrics(d, planets, jit, t.MedianSigma())
	fmt.Fprintf(out, "%s (%s): %d planets, rms %.3f m/s (limit %.3f), ΔBIC/N %.3f\n", t.TaskID, label, len(planets), m.RMSMS, m.MaxRMSMS, m.DeltaBICPerPoint)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "P_DAYS\tK_MS\tM_SIN_I_MJUP\tE\tOMEGA_RAD\tM0_RAD")
	for _, p := range planets {
		fmt.Fprintf(w, "%.5f\t%.3f\t%.4f\t%.3f\t%.3f\t%.3f\n", p.PeriodDays, p.KMS,
			rv.MSinI(p.KMS, p.PeriodDays, p.E, t.Config.Star.MStarSun), p.E, p.OmegaRad, p.M0Rad)
	}
	if err := w.Flush(); err != nil || honest == nil {
		return err
	}
	return writeHonestDetails(out, d, honest)
}

// instrumentFits lists each instrument's points, offset and jitter in the honest fit h of d.
func instrumentFits(d *rv.Data, h *rv.HonestResult) []rvgate.InstrumentFit {
	out := make([]rvgate.InstrumentFit, len(d.Instruments))
	for k, name := range d.Instruments {
		out[k] = rvgate.InstrumentFit{Name: name, OffsetMS: h.Offsets[k], JitterMS: h.InstJitter[k]}
	}
	for _, k := range d.Inst {
		out[k].Points++
	}
	return out
}

// writeHonestDetails prints what the honest search adds: each instrument's offset and jitter, and its steps.
func writeHonestDetails(out io.Writer, d *rv.Data, h *rv.HonestResult) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "INSTRUMENT\tPOINTS\tOFFSET_MS\tJITTER_MS")
	for _, in := range instrumentFits(d, h) {
		fmt.Fprintf(w, "%s\t%d\t%.3f\t%.3f\n", in.Name, in.Points, in.OffsetMS, in.JitterMS)
	}
	if h.Activity != nil {
		fmt.Fprintf(w, "stellar activity at %.2f d (rotation and its harmonic, %d knots) removed before the planets\n", h.Activity.PeriodDays, len(h.Activity.Knots))
	}
	fmt.Fprintln(w, "STEP\tPEAK_P_DAYS\tFAP\tEMPIRICAL_FAP\tFITTED_P_DAYS\tDEVIANCE_GAIN\tDECISION")
	for i, st := range h.Steps {
		fmt.Fprintf(w, "%d\t%.4f\t%.2g\t%.2g\t%.4f\t%.1f\t%s\n", i+1, st.PeakPeriodDays, st.PeakFAP, st.EmpiricalFAP,
			st.PeriodDays, st.DevianceGain, st.Reason)
	}
	return w.Flush()
}
