package main

import (
	"context"
	"io"
	"reflect"
	"testing"

	"github.com/spf13/cobra"
)

// rvParent is a stand-in for the rv group under the root: the --tasks and --json persistent flags.
func rvParent(common *rvCommon, sub *cobra.Command) *cobra.Command {
	p := &cobra.Command{Use: "rv", SilenceUsage: true, SilenceErrors: true}
	p.PersistentFlags().StringVar(&common.TasksDir, "tasks", "", "")
	p.PersistentFlags().Bool("json", false, "")
	p.AddCommand(sub)
	return p
}

// capture returns a run function that keeps the options it is called with.
func capture[O any](got *O) func(context.Context, O, io.Writer) error {
	return func(_ context.Context, o O, _ io.Writer) error { *got = o; return nil }
}

// TestRVFlagsBindOptions parses each rv command's flags and checks the options its run function receives:
// every flag lands in its field, defaults hold, and the "was this flag given" fields follow the command line.
func TestRVFlagsBindOptions(t *testing.T) {
	base := rvCommon{TasksDir: "tasks-dir", JSON: true, Stderr: io.Discard}
	cases := []struct {
		name string
		args []string
		run  func(common *rvCommon, args []string) (any, error)
		want any
	}{
		{"list", []string{"list", "--tier", "real"}, func(c *rvCommon, args []string) (any, error) {
			var o rvListOptions
			return &o, execRV(c, newRVListCmd(c, capture(&o)), args)
		}, &rvListOptions{rvCommon: base, Tier: "real"}},
		{"show", []string{"show", "seed1"}, func(c *rvCommon, args []string) (any, error) {
			var o rvShowOptions
			return &o, execRV(c, newRVShowCmd(c, capture(&o)), args)
		}, &rvShowOptions{rvCommon: base, Task: "seed1"}},
		{"start", []string{"start", "seed1"}, func(c *rvCommon, args []string) (any, error) {
			var o rvShowOptions
			return &o, execRV(c, newRVStartCmd(c, capture(&o)), args)
		}, &rvShowOptions{rvCommon: base, Task: "seed1"}},
		{"truthcheck", []string{"truthcheck", "--tier", "easy"}, func(c *rvCommon, args []string) (any, error) {
			var o rvTruthcheckOptions
			return &o, execRV(c, newRVTruthcheckCmd(c, capture(&o)), args)
		}, &rvTruthcheckOptions{rvCommon: base, Tier: "easy"}},
		{"submit", []string{"submit", "seed1", "--planets", "-", "--dry-run", "--tokens-used", "7"}, func(c *rvCommon, args []string) (any, error) {
			var o rvSubmitOptions
			err := execRV(c, newRVSubmitCmd(c, capture(&o)), args)
			o.In = nil
			return &o, err
		}, &rvSubmitOptions{rvCommon: base, Task: "seed1", Planets: "-", DryRun: true, TokensUsed: 7, TokensSet: true}},
		{"submit without tokens", []string{"submit", "seed1", "--planets", "p.json"}, func(c *rvCommon, args []string) (any, error) {
			var o rvSubmitOptions
			err := execRV(c, newRVSubmitCmd(c, capture(&o)), args)
			o.In = nil
			return &o, err
		}, &rvSubmitOptions{rvCommon: base, Task: "seed1", Planets: "p.json"}},
		{"generate", []string{"generate", "--seed", "0", "--out", "t.json"}, func(c *rvCommon, args []string) (any, error) {
			var o rvGenerateOptions
			return &o, execRV(c, newRVGenerateCmd(c, capture(&o)), args)
		}, &rvGenerateOptions{rvCommon: base, SeedSet: true, Out: "t.json", Count: 20, StartSeed: 1_000_000}},
		{"baseline", []string{"baseline", "search", "--tier", "hard", "--workers", "3", "--per-task", "--quiet"}, func(c *rvCommon, args []string) (any, error) {
			var o rvBaselineOptions
			return &o, execRV(c, newRVBaselineCmd(c, capture(&o)), args)
		}, &rvBaselineOptions{rvCommon: base, Pipeline: "search", Tier: "hard", Workers: 3, PerTask: true, Quiet: true}},
		{"fit", []string{"fit", "seed1"}, func(c *rvCommon, args []string) (any, error) {
			var o rvFitOptions
			return &o, execRV(c, newRVFitCmd(c, capture(&o)), args)
		}, &rvFitOptions{rvCommon: base, Task: "seed1"}},
		{"fit", []string{"fit", "seed1", "--pipeline", "honest"}, func(c *rvCommon, args []string) (any, error) {
			var o rvFitOptions
			return &o, execRV(c, newRVFitCmd(c, capture(&o)), args)
		}, &rvFitOptions{rvCommon: base, Task: "seed1", Pipeline: "honest"}},
		{"import", []string{"import", "a.csv", "b.txt", "--name", "star", "--mstar", "0.9", "--replace"}, func(c *rvCommon, args []string) (any, error) {
			var o rvImportOptions
			return &o, execRV(c, newRVImportCmd(c, capture(&o)), args)
		}, &rvImportOptions{rvCommon: base, Files: []string{"a.csv", "b.txt"}, Name: "star", MStarSun: 0.9, Replace: true}},
		{"import time", []string{"import", "a.csv", "--time-offset", "0", "--time-system", "btjd"}, func(c *rvCommon, args []string) (any, error) {
			var o rvImportOptions
			return &o, execRV(c, newRVImportCmd(c, capture(&o)), args)
		}, &rvImportOptions{rvCommon: base, Files: []string{"a.csv"}, TimeSystem: "btjd", TimeOffsetSet: true}},
		{"grade", []string{"grade", "--solution", "sol", "--timeout", "2.5", "--fresh", "--workers", "2"}, func(c *rvCommon, args []string) (any, error) {
			var o rvGradeOptions
			return &o, execRV(c, newRVGradeCmd(c, capture(&o)), args)
		}, &rvGradeOptions{rvCommon: base, Solution: "sol", Workers: 2, Timeout: 2.5, TimeoutSet: true, Fresh: true}},
	}
	for _, tc := range cases {
		got, err := tc.run(&rvCommon{}, append(tc.args, "--tasks", "tasks-dir", "--json"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: options\n %+v\nwant\n %+v", tc.name, got, tc.want)
		}
	}
}

// execRV runs sub under an rv stand-in with args; its stderr, which the options pick up, is io.Discard.
func execRV(common *rvCommon, sub *cobra.Command, args []string) error {
	p := rvParent(common, sub)
	p.SetArgs(args)
	sub.SetErr(io.Discard)
	return p.Execute()
}
