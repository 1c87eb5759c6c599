package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/internal/termtext"
	"transitbench/workspace/report"
)

func init() { register(newSiteCmd) }

// siteOptions are the inputs of 'transitbench report'.
type siteOptions struct {
	Out       string // --out: the directory the static site is written to
	Serve     string // --serve: the address pages are served on live (host:port)
	Baselines string // --baselines: a ladder table ("": the data directory's, else the compiled-in one)
	Workers   int    // --workers: star pages drawn at once (0: one per core)
	NoCache   bool   // --no-cache: draw every star page afresh and keep nothing for the next build
	Tasks     string // --tasks: the Stargazer tasks, for the RV fit plots
	// AllowRemote is --allow-remote: let --serve listen on an address that is not loopback, answering any Host.
	AllowRemote bool
	scopeFlags  // --workspace, --all-workspaces: whose runs

	ready func(addr string)
}

func newSiteCmd() *cobra.Command {
	opts := &siteOptions{}
	cmd := &cobra.Command{
		Use:   "report (--out DIR | --serve HOST:PORT)",
		Short: "Write the results site (leaderboard, runs, stars, comparisons, RV) or serve it live",
		Long: `Write the results site from the results store of the data directory, of the current workspace's runs
(--workspace DIR, else the one around the working directory, else the default workspace; every page's header
names it and its solution's kind) or with --all-workspaces of every run: a leaderboard of every grading
(first gradings marked, re-gradings shown as such) with S on A, B and dev, C, F and EB share beside the baseline
ladder and TransitBench's published values, with a
plot of S on A against S on B; a page per run (score, breakdowns by population, MES bin and category, outcomes
by exit reason, runtimes; a dev run's stars); a page per dev star (light curve, periodogram, folds at each row,
the truth and the top peak, odd/even and secondary, rows with their match status, stderr); comparisons of each
run with the one before it on the same set; the pass rates per tier of every 'rv grade' run (finished runs are
kept in <data dir>/rv/runs) and of the 'rv submit' ledger beside the truth ceiling, with each task's fit.

The ladder is the data directory's own table, <data dir>/baselines.json (e.g. 'transitbench baselines --out
"$TRANSITBENCH_HOME/baselines.json"'), else results/baselines.json as compiled into this program; --baselines
FILE shows another table. The working directory is never read.

--out DIR writes it as static HTML that opens from the file system (every style and figure inline, no
network). --serve 127.0.0.1:8080 serves the same pages live from the store (a running dev run's page refreshes
itself as stars finish) until interrupted: on loopback only unless --allow-remote, and answering only requests
for localhost and the loopback addresses (another Host header, as a DNS-rebinding page sends, gets 403). Runs on the hidden sets show aggregates only; no page names a
hidden star.

Star pages are drawn by --workers goroutines (default one per core) while the other pages are written. What a
star page draws of its star (the search, the light curve, the folds) is kept in <data dir>/cache/site for the
next build, keyed by this program's SHA-256, the set's fingerprint and the star's digest: a rebuild draws only the
folds at new rows. --no-cache draws everything afresh and keeps nothing.

--json prints {"dir", "pages", "star_pages", "bytes", "seconds"} after --out, and {"address"} once --serve
listens.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSite(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the static site into this directory")
	cmd.Flags().StringVar(&opts.Serve, "serve", "", "serve the site live on this address, e.g. 127.0.0.1:8080")
	cmd.Flags().StringVar(&opts.Baselines, "baselines", "", "a baseline ladder table to show (default: <data dir>/baselines.json, else the compiled-in results/baselines.json)")
	cmd.Flags().IntVar(&opts.Workers, "workers", 0, "star pages drawn at once (0: one per core)")
	cmd.Flags().BoolVar(&opts.NoCache, "no-cache", false, "draw every star page afresh and keep nothing in <data dir>/cache/site")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "let --serve listen on an address that is not loopback (and answer any Host)")
	opts.scopeFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Tasks, "tasks", "", "folder of the Stargazer tasks, for the RV fit plots (default: $TRANSITBENCH_STARGAZER or ../shared/data/stargazer)")
	return cmd
}

// siteServeJSON is what --serve --json prints once it listens.
type siteServeJSON struct {
	Address string `json:"address"`
}

// runSite writes the site (--out) or serves it (--serve).
func runSite(ctx context.Context, s streams, opts *siteOptions) error {
	if (opts.Out == "") == (opts.Serve == "") {
		return usageErrorf("report needs exactly one of --out DIR and --serve HOST:PORT")
	}
	if opts.Workers < 0 {
		return usageErrorf("--workers %d: give 1 or more, or 0 for one per core", opts.Workers)
	}
	if opts.Serve != "" {
		if err := checkListenAddr("--serve", opts.Serve, opts.AllowRemote); err != nil {
			return err
		}
	}
	if opts.Out != "" {
		if fi, err := os.Stat(opts.Out); err == nil && !fi.IsDir() {
			return usageErrorf("--out %s is a file: give a directory", opts.Out)
		}
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	scope, err := opts.scope()
	if err != nil {
		return err
	}
	if opts.Baselines != "" {
		if err := isRegularFileArg("--baselines", opts.Baselines, "a ladder table written by 'transitbench baselines --out'"); err != nil {
			return err
		}
	}
	ropt := report.Options{Home: home, Workers: opts.Workers, NoCache: opts.NoCache, RVTasks: opts.Tasks, Baselines: opts.Baselines,
		Workspace: scope.filter(), Scope: scope.title()}
	site, err := report.Open(ropt)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return notFoundf("%v", err)
		}
		return err
	}
	defer site.Close()
	ctx, stop := interruptible(ctx)
	defer stop()
	if opts.Serve != "" {
		return serveSite(ctx, s, site, opts)
	}
	defer withBuildGC()()
	res, err := site.Build(ctx, opts.Out, func(done, total int) {
		if !s.JSON {
			fmt.Fprintf(termtext.Raw(s.Err), "\rstar pages %d/%d", done, total) // redrawn in place: our own text
			if done == total {
				fmt.Fprintln(s.Err)
			}
		}
	})
	if err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(s.Out, res)
	}
	fmt.Fprintf(s.Out, "wrote %d pages (%d stars, %.1f MB) to %s in %.1f s; open %s\n", res.Pages, res.Stars,
		float64(res.Bytes)/1e6, res.Dir, res.Seconds, filepath.Join(res.Dir, "index.html"))
	return nil
}

// siteGCPercent is the garbage collector's target while the static site is built, unless GOGC is set: a star
// page allocates its light curve and search afresh, and collecting at 400 % growth instead of 100 % takes about
// a tenth of the build's CPU time off (BenchmarkBuildDevRun, cache=cold, 20 stars: 7.2–7.6 CPU-s at GOGC=100,
// 6.8–6.9 at 400), for a few hundred MB more at the peak.
const siteGCPercent = 400

// withBuildGC sets the collector's target for a build (siteGCPercent, unless GOGC is set) and returns what
// restores it.
func withBuildGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(siteGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// serveSite serves the site on opts.Serve until ctx ends.
func serveSite(ctx context.Context, s streams, site *report.Site, opts *siteOptions) error {
	ln, err := net.Listen("tcp", opts.Serve)
	if err != nil {
		return usageErrorf("--serve %s: %v", opts.Serve, err)
	}
	// On loopback, only requests for the loopback names (DNS rebinding); --allow-remote answers any Host.
	guard := &httpGuard{hosts: loopbackHosts(ln.Addr()), next: site.Handler()}
	srv := &http.Server{Handler: guard, ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	if s.JSON {
		if err := writeJSON(s.Out, siteServeJSON{Address: addr}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(s.Out, "serving the results site on http://%s/ (Ctrl-C stops)\n", addr)
	}
	if opts.ready != nil {
		opts.ready(addr)
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
