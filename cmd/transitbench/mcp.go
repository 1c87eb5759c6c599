package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
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
	HTTP        string   // --http: serve streamable HTTP on this address (host:port, or unix:PATH) instead of stdio
	AllowRemote bool     // --allow-remote: let --http listen on an address that is not loopback
	AllowOrigin []string // --allow-origin: web origins whose pages may call the server (besides its own)
	Preset      string   // --preset: the sessions' budget preset ("": the workspace's)
	AgentID     string   // --agent-id: whose budget the sessions spend ("": the workspace's)
	Tasks       string   // --tasks: the RV task folder
	Ladder      string   // --ladder: a baseline ladder table ("": the data directory's, else the compiled-in one)
}

func newMCPCmd() *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the benchmark to agents over the Model Context Protocol (stdio, or --http)",
		Long: `Serve the benchmark to an agent over the Model Context Protocol: standard input and output by default
(a client starts 'transitbench mcp' as its server command), or streamable HTTP with --http 127.0.0.1:PORT
(loopback only unless --allow-remote) or --http unix:PATH (a socket only its owner may use, mode 0600). The
server keeps the sets, tasks and recent star analyses loaded.

Over TCP every request must carry a token: the server writes a fresh random one at each start to
<data directory>/mcp-token (mode 0600) and prints it once on standard error; clients send
"Authorization: Bearer <token>" (401 without it). Requests with a Host other than localhost and the loopback
addresses are refused (403, against DNS rebinding), as are requests from web pages (an Origin header) other
than the server's own and those --allow-origin names (403). Over a unix socket the socket's mode stands in for
the token.

Tools, transit track: list_stars, star_info, bls, fold, vet, plot_star (a PNG image), run_dev (progress
notifications), star_outcome, failing, grade (confirm: true). RV track: rv_list (each task's state), rv_show
(metadata; starts nothing), rv_start (starts the task's clock and gives its data), rv_fit, rv_plot (a PNG image),
rv_submit (spends a submission through the same ledger as 'rv submit').
Resources: transitbench://task/TASK.md, transitbench://task/output-format, transitbench://task/scoring,
transitbench://baselines/ladder. Hidden sets stay hidden exactly as on the command line.

Every tool call is counted, timed and recorded per MCP session in the results store with an estimate of its
tokens. The budget (the workspace's preset, or --preset: turns, tokens, hours) belongs to the workspace, or to
the agent --agent-id NAME names, not to a session: it is summed over every session of that agent, across
restarts of the server, and past it grade and rv_submit are refused (the refusal is recorded). A fresh budget
takes another --agent-id. 'transitbench runs --agents' lists each agent's totals and the sessions. Logs go to standard error; standard output carries only the protocol.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runMCP, opts),
	}
	opts.runFlags.add(cmd)
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765, or unix:/path/to/socket) instead of stdio")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "let --http listen on an address that is not loopback")
	cmd.Flags().StringSliceVar(&opts.AllowOrigin, "allow-origin", nil, "a web origin (scheme://host:port) whose pages may call --http (repeatable)")
	cmd.Flags().StringVar(&opts.Preset, "preset", "", "budget preset: survey or mini (default: the workspace's)")
	cmd.Flags().StringVar(&opts.AgentID, "agent-id", "", "the agent whose budget the sessions spend, kept across sessions (default: the workspace's)")
	cmd.Flags().StringVar(&opts.Tasks, "tasks", "", "folder of RV task JSON files (default: $TRANSITBENCH_STARGAZER or ../shared/data/stargazer)")
	cmd.Flags().StringVar(&opts.Ladder, "ladder", "", "a baseline ladder table to serve (default: <data dir>/baselines.json, else the compiled-in results/baselines.json)")
	return cmd
}

// runMCP checks the flags, opens the workspace and serves until the client leaves or the process is interrupted.
func runMCP(ctx context.Context, s streams, opts *mcpOptions) error {
	if opts.Preset != "" {
		if _, ok := workspace.Presets[opts.Preset]; !ok {
			return usageErrorf("--preset %q: use survey or mini", opts.Preset)
		}
	}
	if err := checkAgentID(opts.AgentID); err != nil {
		return err
	}
	if opts.HTTP != "" && !strings.HasPrefix(opts.HTTP, "unix:") {
		if err := checkListenAddr("--http", opts.HTTP, opts.AllowRemote); err != nil {
			return err
		}
	}
	if opts.HTTP == "unix:" {
		return usageErrorf("--http unix: give the socket's path, e.g. unix:/run/user/1000/transitbench.sock")
	}
	if opts.Ladder != "" {
		if err := isRegularFileArg("--ladder", opts.Ladder, "the baseline ladder's JSON table"); err != nil {
			return err
		}
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
	srv, err := mcpserver.New(mcpserver.Options{Workspace: ws, Run: runOpt, TasksDir: opts.Tasks, Preset: opts.Preset, Agent: opts.AgentID,
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
	return serveHTTP(ctx, s, srv, opts, home)
}

// checkAgentID refuses an --agent-id that is not a short printable name ("" is the workspace's budget).
func checkAgentID(id string) error {
	if id == "" {
		return nil
	}
	if len(id) > 64 || strings.HasPrefix(id, "workspace:") || strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@", r))
	}) >= 0 {
		return usageErrorf("--agent-id %q: give a name of at most 64 letters, digits and - _ . @ (e.g. --agent-id claude-run-3)", id)
	}
	return nil
}

// serveHTTP serves the streamable HTTP transport on opts.HTTP until ctx ends: over TCP behind a fresh bearer
// token (written to home's token file and printed once on s.Err), over a unix socket of mode 0600; either way
// behind the Host and Origin checks of httpGuard.
func serveHTTP(ctx context.Context, s streams, srv *mcpserver.Server, opts *mcpOptions, home string) error {
	ln, err := listenMCP(opts.HTTP)
	if err != nil {
		return err
	}
	defer ln.Close()
	guard := &httpGuard{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil)}
	if ln.Addr().Network() == "unix" {
		guard.origins = sameOrigins(ln.Addr(), nil, opts.AllowOrigin)
		fmt.Fprintf(s.Err, "transitbench mcp: serving MCP (streamable HTTP) on the unix socket %s (mode 0600: only its owner connects)\n", ln.Addr())
	} else {
		guard.hosts = loopbackHosts(ln.Addr())
		guard.origins = sameOrigins(ln.Addr(), guard.hosts, opts.AllowOrigin)
		token, path, err := newToken(home)
		if err != nil {
			return fmt.Errorf("writing the server's token: %w", err)
		}
		defer os.Remove(path)
		guard.token = token
		fmt.Fprintf(s.Err, "transitbench mcp: token %s (in %s, mode 0600; a new one at each start): clients send \"Authorization: Bearer <token>\"\n", token, path)
		fmt.Fprintf(s.Err, "transitbench mcp: serving MCP (streamable HTTP) on http://%s/\n", ln.Addr())
	}
	hs := &http.Server{Handler: guard, ReadHeaderTimeout: 10 * time.Second}
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

// listenMCP listens on addr: host:port over TCP, or unix:PATH on a unix socket of mode 0600 (a stale socket at
// PATH is replaced; any other file there is refused).
func listenMCP(addr string) (net.Listener, error) {
	path, isUnix := strings.CutPrefix(addr, "unix:")
	if !isUnix {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, withCode(codeUsage, fmt.Errorf("--http %s: %w", addr, err))
		}
		return ln, nil
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return nil, usageErrorf("--http %s: %s exists and is not a socket; give a new path", addr, path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, withCode(codeUsage, fmt.Errorf("--http %s: %w", addr, err))
	}
	// The socket is made with the umask's mode (0755 under the usual 022, which lets no one else connect: that
	// takes write permission); it is narrowed to its owner at once.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// checkListenAddr refuses an address that is not host:port, or whose host is not loopback unless allowed; flag
// names the flag that gave it.
func checkListenAddr(flag, addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return usageErrorf("%s %q: give host:port, e.g. 127.0.0.1:8765", flag, addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return usageErrorf("%s %s: the server listens on loopback only (127.0.0.1, ::1, localhost); pass --allow-remote to listen on %q", flag, addr, host)
	}
	return nil
}
