package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/workspace/rvtrack"
)

// The RV track's commands, one file each (rv_list.go, rv_show.go, rv_truthcheck.go, rv_submit.go,
// rv_generate.go, rv_baseline.go, rv_fit.go, rv_grade.go, rv_import.go). Each has an options struct its flags are bound to
// and a runRVX(ctx, opts, out) function holding the work, which the tests call without cobra. Every --json
// output is a named Go type, documented beside its command and listed in docs/ARCHITECTURE.md:
//
//	rv list        rvListJSON
//	rv start       rvShowJSON
//	rv show        rvShowJSON
//	rv truthcheck  rvTruthcheckJSON
//	rv submit      rvgate.Feedback
//	rv generate    rvGenerateJSON
//	rv baseline    rvbaselines.BaselineReport
//	rv fit         rvgate.Submission
//	rv grade       rvtrack.SolutionReport
//	rv import      rvImportJSON

func init() { register(newRVCmd) }

// rvCommon is what every rv command reads besides its own flags.
type rvCommon struct {
	// TasksDir is --tasks, the folder of task files ("": $TRANSITBENCH_STARGAZER, else ../shared/data/stargazer
	// found from the working directory or the executable; stargazer.LocateDir).
	TasksDir string
	// Home is the data directory holding the submission ledger ("": data.Home()).
	Home string
	// JSON is the root's --json: print the command's JSON type instead of text.
	JSON bool
	// Stderr receives warnings (task files left out) and progress lines; nil discards them.
	Stderr io.Writer
}

// at returns the common options as they stand once cmd's flags are parsed.
func (c *rvCommon) at(cmd *cobra.Command) rvCommon {
	o := *c
	o.JSON = wantJSON(cmd)
	o.Stderr = cmd.ErrOrStderr()
	return o
}

func (c rvCommon) stderr() io.Writer {
	if c.Stderr == nil {
		return io.Discard
	}
	return c.Stderr
}

// newRVCmd builds the RV-track command group. Task files are read from --tasks, $TRANSITBENCH_STARGAZER or
// ../shared/data/stargazer found from the working directory or the executable (stargazer.LocateDir).
func newRVCmd() *cobra.Command {
	common := &rvCommon{}
	rvCmd := &cobra.Command{
		Use:   "rv",
		Short: "The RV track: Stargazer radial-velocity tasks, the four-criterion gate and baselines",
		Long: `The RV track (Stargazer). Tasks are read from --tasks DIR, else $TRANSITBENCH_STARGAZER, else the folder
../shared/data/stargazer found from the working directory or the executable; 'rv generate' makes new ones.
Submissions are recorded against each tier's budget in $TRANSITBENCH_HOME/rv/submissions.json.`,
		Args: cobra.NoArgs,
		RunE: groupHelp,
	}
	rvCmd.PersistentFlags().StringVar(&common.TasksDir, "tasks", "", "folder of task JSON files (default: $TRANSITBENCH_STARGAZER or ../shared/data/stargazer)")
	rvCmd.AddCommand(newRVListCmd(common, nil), newRVStartCmd(common, nil), newRVShowCmd(common, nil), newRVTruthcheckCmd(common, nil),
		newRVSubmitCmd(common, nil), newRVGenerateCmd(common, nil), newRVBaselineCmd(common, nil), newRVFitCmd(common, nil),
		newRVGradeCmd(common, nil), newRVImportCmd(common, nil))
	return rvCmd
}

// rvSubcommand finishes the rv subcommand c and returns it with the options its flags are to be bound to. Its
// RunE lets bind fill in the options for the parsed command and its arguments, then passes them to run, or to def
// when run is nil (tests pass a run that records the options). With signals, run's context is cancelled when one
// of them arrives; without, it is the command's context.
func rvSubcommand[O any](c *cobra.Command, run, def func(context.Context, O, io.Writer) error,
	bind func(opts *O, cmd *cobra.Command, args []string), signals ...os.Signal) (*cobra.Command, *O) {
	if run == nil {
		run = def
	}
	opts := new(O)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if len(signals) > 0 {
			var stop context.CancelFunc
			ctx, stop = signal.NotifyContext(context.Background(), signals...)
			defer stop()
		}
		bind(opts, cmd, args)
		return run(ctx, *opts, cmd.OutOrStdout())
	}
	return c, opts
}

// rvTierOptions are the inputs of the rv commands whose one flag is --tier ('rv list', 'rv truthcheck').
type rvTierOptions struct {
	rvCommon
	Tier string // --tier: only this tier ("": all)
}

// newRVTierCmd finishes c, an rv subcommand whose one flag is --tier, with rvSubcommand.
func newRVTierCmd(c *cobra.Command, common *rvCommon, run, def func(context.Context, rvTierOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(c, run, def, func(o *rvTierOptions, cmd *cobra.Command, _ []string) {
		o.rvCommon = common.at(cmd)
	})
	c.Flags().StringVar(&opts.Tier, "tier", "", "only this tier: easy, medium, hard, real or user (imported)")
	return c
}

// tierTasks checks tier ("" for all tiers), loads the tasks and returns those of tier, the files left out and
// the task folder (loadTasks).
func (c rvCommon) tierTasks(tier string) (tasks []*stargazer.Task, skipped []stargazer.Skipped, dir string, err error) {
	if err := checkRVTier(tier); err != nil {
		return nil, nil, "", err
	}
	all, skipped, dir, err := c.loadTasks()
	if err != nil {
		return nil, nil, "", err
	}
	return inTier(all, tier), skipped, dir, nil
}

// loadTasks reads the tasks of the task folder, then the imported tasks of the data directory's user task folder
// (stargazer.UserDir), and returns them with the task folder's path. A task file that does not load, or an
// imported task whose id is a published one's, is left out with a warning on Stderr and listed in skipped
// (never nil). When no published task folder is found, the imported tasks alone are returned if there are any
// and --tasks was not given.
func (c rvCommon) loadTasks() (tasks []*stargazer.Task, skipped []stargazer.Skipped, dir string, err error) {
	dir, err = stargazer.LocateDir(c.TasksDir)
	if err == nil {
		tasks, skipped, err = stargazer.LoadDir(dir)
	}
	var user []*stargazer.Task
	userDir := ""
	if home, herr := c.home(); herr == nil {
		var uskipped []stargazer.Skipped
		userDir = stargazer.UserDir(home)
		user, uskipped = stargazer.LoadUserDir(userDir)
		skipped = append(skipped, uskipped...)
	}
	if err != nil && (len(user) == 0 || c.TasksDir != "") {
		return nil, nil, "", err
	}
	err = nil
	seen := map[string]bool{}
	for _, t := range tasks {
		seen[t.TaskID] = true
	}
	for _, t := range user {
		if seen[t.TaskID] {
			skipped = append(skipped, stargazer.Skipped{Path: filepath.Join(userDir, t.TaskID+".json"),
				Error: fmt.Sprintf("imported task %s has the id of a published task; import it again with another --name", t.TaskID)})
			continue
		}
		seen[t.TaskID] = true
		tasks = append(tasks, t)
	}
	stargazer.SortTasks(tasks)
	for _, s := range skipped {
		fmt.Fprintf(c.stderr(), "transitbench: warning: %s; the file is left out, the other tasks load\n", s.Error)
	}
	if skipped == nil {
		skipped = []stargazer.Skipped{}
	}
	return tasks, skipped, dir, nil
}

// home returns the data directory: Home, else $TRANSITBENCH_HOME or the XDG data directory (data.Home).
func (c rvCommon) home() (string, error) {
	if c.Home != "" {
		return c.Home, nil
	}
	return data.Home()
}

// checkGradableTier refuses --tier user for the commands that grade against the truth.
func checkGradableTier(tier string) error {
	if tier == stargazer.TierUser {
		return usageErrorf("--tier user: imported tasks have no truth to grade against; fit them with 'transitbench rv fit TASK'")
	}
	return nil
}

// gradableTasks is tierTasks for the commands that grade against the truth: it refuses --tier user and leaves
// out the imported tasks.
func (c rvCommon) gradableTasks(tier string) (tasks []*stargazer.Task, dir string, err error) {
	if err := checkGradableTier(tier); err != nil {
		return nil, "", err
	}
	tasks, _, dir, err = c.tierTasks(tier)
	if err != nil {
		return nil, "", err
	}
	return gradable(tasks), dir, nil
}

// gradable drops the imported tasks (tier user), which have no truth to grade against.
func gradable(tasks []*stargazer.Task) []*stargazer.Task {
	var out []*stargazer.Task
	for _, t := range tasks {
		if !t.Imported {
			out = append(out, t)
		}
	}
	return out
}

// findTask loads the tasks and returns the one named id (not_found when there is none).
func (c rvCommon) findTask(id string) (*stargazer.Task, error) {
	tasks, _, _, err := c.loadTasks()
	if err != nil {
		return nil, err
	}
	t, err := stargazer.Find(tasks, id)
	if err != nil {
		return nil, withCode(codeNotFound, err)
	}
	return t, nil
}

// withLedger runs fn on the submission ledger of the data directory (Home, else $TRANSITBENCH_HOME or the XDG
// data directory)/rv/submissions.json, locked against every other program using it (rvtrack.WithLedger).
func (c rvCommon) withLedger(fn func(*rvtrack.Ledger) error) error {
	home, err := c.home()
	if err != nil {
		return err
	}
	return rvtrack.WithLedger(rvtrack.LedgerPath(home), fn)
}

// notStarted is the error of a command that would show task t's data before its clock started: it says how to
// start it (code refused, exit status 2).
func notStarted(t *stargazer.Task) error {
	return withCode(codeRefused, notStartedError{"task " + t.TaskID + " is " + startAdvice(t)})
}

// startAdvice is what rv show says of a task not started, and the end of notStarted's message.
func startAdvice(t *stargazer.Task) string {
	return fmt.Sprintf("not started: run 'transitbench rv start %s' to see the data and start its %d s clock", t.TaskID, t.Budget().Seconds)
}

// notStartedError is notStarted's error: its message, and rvtrack.ErrNotStarted for errors.Is.
type notStartedError struct{ msg string }

func (e notStartedError) Error() string { return e.msg }
func (e notStartedError) Unwrap() error { return rvtrack.ErrNotStarted }

// requireStarted returns notStarted unless task t's clock has started in the ledger of the data directory (an
// imported task, the contestant's own data, has no clock and needs no start). It reads a snapshot: it changes
// nothing.
func (c rvCommon) requireStarted(t *stargazer.Task) error {
	if t.Imported {
		return nil
	}
	l, err := c.ledger()
	if err != nil {
		return err
	}
	if !l.Shown(t.TaskID) {
		return notStarted(t)
	}
	return nil
}

// ledger reads a snapshot of the submission ledger of the data directory (rvtrack.OpenLedger).
func (c rvCommon) ledger() (*rvtrack.Ledger, error) {
	home, err := c.home()
	if err != nil {
		return nil, err
	}
	return rvtrack.OpenLedger(rvtrack.LedgerPath(home))
}

// checkRVTier checks a --tier value ("" for all tiers).
func checkRVTier(tier string) error {
	if err := stargazer.ValidTier(tier); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// inTier returns the tasks of tier ("": all of them).
func inTier(tasks []*stargazer.Task, tier string) []*stargazer.Task {
	var out []*stargazer.Task
	for _, t := range tasks {
		if tier == "" || t.Tier() == tier {
			out = append(out, t)
		}
	}
	return out
}
