package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/workspace"
	"transitbench/workspace/mcpserver"
)

func init() { register(newMCPCmd) }

// mcpOptions are the inputs of 'transitbench mcp'.
type mcpOptions struct {
	runFlags
	HTTP        string // --http: serve streamable HTTP on this address instead of stdio
	AllowRemote bool   // --allow-remote: let --http listen on an address that is not loopback
	Preset      string // --preset: the sessions' budget preset ("": the workspace's)
	Tasks       string // --tasks: the RV task folder
	Ladder      string // --ladder: the baseline ladder's table ("": results/baselines.json found from here)
}

func newMCPCmd() *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the benchmark to agents over the Model Context Protocol (stdio, or --http)",
		Long: `Serve the benchmark to an agent over the Model Context Protocol: standard input and output by default
(a client starts 'transitbench mcp' as its server command), or streamable HTTP with --http 127.0.0.1:PORT
(loopback only unless --allow-remote). The server keeps the sets, tasks and recent star analyses loaded.

Tools, transit track: list_stars, star_info, bls, fold, vet, plot_star (a PNG image), run_dev (progress
notifications), star_outcome, failing, grade (confirm: true). RV track: rv_list, rv_show (starts the task's
clock), rv_fit, rv_plot (a PNG image), rv_submit (spends a submission through the same ledger as 'rv submit').
Resources: transitbench://task/TASK.md, transitbench://task/output-format, transitbench://task/scoring,
transitbench://baselines/ladder. Hidden sets stay hidden exactly as on the command line.

Every tool call is counted, timed and recorded per MCP session in the results store with an estimate of its
tokens; a session past the budget preset (the workspace's, or --preset: turns, tokens, hours) is refused
grade and rv_submit, and the refusal is recorded. 'transitbench runs --agents' lists the sessions and their
spend. Logs go to standard error; standard output carries only the protocol.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runMCP, opts),
	}
	opts.runFlags.add(cmd)
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "let --http listen on an address that is not loopback")
	cmd.Flags().StringVar(&opts.Preset, "preset", "", "budget preset of each session: survey or mini (default: the workspace's)")
	cmd.Flags().StringVar(&opts.Tasks, "tasks", "", "folder of RV task JSON files (default: $TRANSITBENCH_STARGAZER or ../shared/data/stargazer)")
	cmd.Flags().StringVar(&opts.Ladder, "ladder", "", "the baseline ladder's table (default: results/baselines.json found from here)")
	return cmd
}

// runMCP checks the flags, opens the workspace and serves until the client leaves or the process is interrupted.
func runMCP(ctx context.Context, s streams, opts *mcpOptions) error {
	if opts.Preset != "" {
		if _, ok := workspace.Presets[opts.Preset]; !ok {
			return usageErrorf("--preset %q: use survey or mini", opts.Preset)
		}
	}
	if opts.HTTP != "" {
		if err := checkListenAddr(opts.HTTP, opts.AllowRemote); err != nil {
			return err
		}
	}
	if opts.Ladder != "" {
		if err := isRegularFileArg("--ladder", opts.Ladder, "the baseline ladder's JSON table"); err != nil {
			return err
		}
	} else {
		opts.Ladder = findLadder()
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	runOpt, err := opts.runFlags.options(home)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(s.Err, opts.Workspace, home)
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{Workspace: ws, Run: runOpt, TasksDir: opts.Tasks, Preset: opts.Preset,
		LadderFile: opts.Ladder, Version: version, Log: s.Err})
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx, stop := interruptible(ctx)
	defer stop()
	if opts.HTTP == "" {
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	return serveHTTP(ctx, s, srv, opts.HTTP)
}

// serveHTTP serves the streamable HTTP transport on addr until ctx ends.
func serveHTTP(ctx context.Context, s streams, srv *mcpserver.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return withCode(codeUsage, fmt.Errorf("--http %s: %w", addr, err))
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.Err, "transitbench mcp: serving MCP (streamable HTTP) on http://%s/\n", ln.Addr())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkListenAddr refuses an address that is not host:port, or whose host is not loopback unless allowed.
func checkListenAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return usageErrorf("--http %q: give host:port, e.g. 127.0.0.1:8765", addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return usageErrorf("--http %s: the server listens on loopback only (127.0.0.1, ::1, localhost); pass --allow-remote to listen on %q", addr, host)
	}
	return nil
}

// findLadder looks for results/baselines.json in the working directory, the executable's and their parents;
// "" when there is none.
func findLadder() string {
	return data.FindUp(filepath.Join("results", "baselines.json"), func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	})
}
