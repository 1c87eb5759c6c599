package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/sets"
	"transitbench/data/stargazer"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/workspace"
	"transitbench/workspace/quicklook"
)

// Options configure a Server.
type Options struct {
	// Workspace is the contestant's workspace: its dev stars, solution and TASK.md. Required.
	Workspace *workspace.Workspace
	// Run gives the data directory (Run.Home, required), the sets' compositions and the sandbox's limits for
	// run_dev and grade, as the dev and grade commands do.
	Run workspace.RunOptions
	// TasksDir is the folder of the RV tasks ("" lets stargazer.LocateDir find it).
	TasksDir string
	// Preset names the budget preset of workspace.Presets ("": the workspace's own, else "survey").
	Preset string
	// Agent names whose budget the sessions spend ("": the workspace's, "workspace:" and its path). A budget
	// outlives sessions: every session of one agent, on any server of the data directory, spends the same one.
	Agent string
	// LadderFile is a baseline ladder table served as a resource ("": baselines.Ladder of the data directory:
	// its own table, else the compiled-in results/baselines.json).
	LadderFile string
	// Version is the server's version in the MCP handshake.
	Version string
	// Log receives the server's warnings (nil: discarded); never the solution's output.
	Log io.Writer
}

// Server is the agent operator's server: the tools and resources of both tracks over one workspace, with the
// sets, tasks and star analyses loaded once and each MCP session's spend accounted in the results store.
type Server struct {
	opts   Options
	ws     *workspace.Workspace
	home   string
	preset workspace.Preset
	agent  string // whose budget the sessions spend (store.AgentSession.Agent)
	st     *store.Store
	mcp    *mcp.Server

	mu       sync.Mutex
	sets     map[string]*sets.Set
	analyses []cachedAnalysis
	tasks    []*stargazer.Task
	sessions map[*mcp.ServerSession]*session
}

// cachedAnalysis is one star's quick-look analysis, kept for fold, vet and plot_star.
type cachedAnalysis struct {
	set, id string
	a       *quicklook.Analysis
}

// analysisCache is how many star analyses the server keeps.
const analysisCache = 8

// New opens the results store of the data directory and builds the MCP server with every tool and resource.
// The caller closes it.
func New(opts Options) (*Server, error) {
	if opts.Workspace == nil {
		return nil, errors.New("mcpserver: no workspace: run 'transitbench init DIR' and start the server inside it")
	}
	if opts.Run.Home == "" {
		return nil, errors.New("mcpserver: no data directory (Options.Run.Home)")
	}
	name := opts.Preset
	if name == "" {
		name = opts.Workspace.Config.Preset
	}
	if name == "" {
		name = "survey"
	}
	preset, ok := workspace.Presets[name]
	if !ok {
		return nil, fmt.Errorf("mcpserver: unknown budget preset %q: use survey or mini", name)
	}
	st, err := workspace.OpenStore(opts.Run.Home)
	if err != nil {
		return nil, err
	}
	agent := opts.Agent
	if agent == "" {
		agent = WorkspaceAgent(opts.Workspace)
	}
	s := &Server{opts: opts, ws: opts.Workspace, home: opts.Run.Home, preset: preset, st: st, agent: agent,
		sets: map[string]*sets.Set{}, sessions: map[*mcp.ServerSession]*session{}}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "transitbench", Title: "TransitBench", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	s.mcp.AddReceivingMiddleware(s.account)
	s.addTools()
	s.addResources()
	s.addTemplates()
	s.addPrompts()
	return s, nil
}

// addTools registers the tools of both tracks: name, annotations, description (each beside its handler) and
// handler.
func (s *Server) addTools() {
	addTool(s, "list_stars", readOnly("List stars"), listStarsDoc, s.listStars)
	addTool(s, "star_info", readOnly("Star info"), starInfoDoc, s.starInfo)
	addTool(s, "bls", readOnly("BLS search"), blsDoc, s.bls)
	addTool(s, "fold", readOnly("Fold"), foldDoc, s.fold)
	addTool(s, "vet", readOnly("Vet"), vetDoc, s.vet)
	addTool(s, "plot_star", readOnly("Plot star"), plotStarDoc, s.plotStar)
	addTool(s, "run_dev", &mcp.ToolAnnotations{Title: "Run dev"}, runDevDoc, s.runDev)
	addTool(s, "star_outcome", readOnly("Star outcome"), starOutcomeDoc, s.starOutcome)
	addTool(s, "failing", readOnly("Failing stars"), failingDoc, s.failing)
	addTool(s, "grade", &mcp.ToolAnnotations{Title: "Grade", DestructiveHint: ptr(false)}, gradeDoc, s.grade)
	addTool(s, "rv_list", readOnly("RV tasks"), rvListDoc, s.rvList)
	addTool(s, "rv_show", readOnly("Show RV task"), rvShowDoc, s.rvShow)
	addTool(s, "rv_start", &mcp.ToolAnnotations{Title: "Start RV task", DestructiveHint: ptr(false)}, rvStartDoc, s.rvStart)
	addTool(s, "rv_fit", &mcp.ToolAnnotations{Title: "Fit RV task"}, rvFitDoc, s.rvFit)
	addTool(s, "rv_plot", readOnly("Plot RV task"), rvPlotDoc, s.rvPlot)
	addTool(s, "rv_submit", &mcp.ToolAnnotations{Title: "Submit RV planets", DestructiveHint: ptr(false)}, rvSubmitDoc, s.rvSubmit)
	addTool(s, "solution_list", readOnly("List solution files"), solutionListDoc, s.solutionList)
	addTool(s, "solution_read", readOnly("Read a solution file"), solutionReadDoc, s.solutionRead)
	addTool(s, "solution_write", &mcp.ToolAnnotations{Title: "Write a solution file", DestructiveHint: ptr(true)}, solutionWriteDoc, s.solutionWrite)
	addTool(s, "score_rows", readOnly("Score rows on dev"), scoreRowsDoc, s.scoreRows)
}

// addTool registers handler h as tool name. The SDK derives the input and output schemas from In and Out; the
// answer h returns is made JSON-safe (zeroNonFinite) before the SDK encodes it.
func addTool[In, Out any](s *Server, name string, ann *mcp.ToolAnnotations, description string, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: name, Description: description, Annotations: ann},
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			res, out, err := h(ctx, req, in)
			if err == nil {
				zeroNonFinite(&out)
			}
			return res, out, err
		})
}

// readOnly annotates a tool that only reads: calling it again with the same input gives the same answer.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true}
}

func ptr[T any](v T) *T { return &v }

// instructions is what the server tells a client about itself in the handshake.
const instructions = `TransitBench: find transiting planets in Kepler-like light curves (transit track) and fit Keplerian
orbits to radial velocities (RV track). Read the resource transitbench://task/TASK.md first. Transit track:
list_stars, star_info, bls, fold, vet, plot_star (a PNG figure); solution_list, solution_read and solution_write
edit the workspace's solution/; run_dev, star_outcome and failing; score_rows scores rows against the dev
answers; grade (confirm: true) grades the frozen solution once on the hidden sets. Resource templates
transitbench://star/{id} and transitbench://rv/{id}; prompts attempt_transit_task, inspect_failing_stars,
fit_rv_task.
RV track: rv_list (each task's state), rv_show (metadata; starts nothing), rv_start (starts the task's clock and
gives its data), rv_fit, rv_plot (a PNG figure), rv_submit (spends one of the task's submissions). Every tool
call counts against the budget (turns, tokens, hours); past it, grade and rv_submit are refused. The budget
belongs to the workspace (or the agent id the operator named), not to the session: a new session goes on
spending it.`

// WorkspaceAgent is the agent whose budget a workspace's sessions spend when the operator names none:
// "workspace:" and the workspace's path.
func WorkspaceAgent(w *workspace.Workspace) string { return "workspace:" + w.Root }

// Agent is whose budget the server's sessions spend.
func (s *Server) Agent() string { return s.agent }

// MCP is the protocol server, to run over a transport (Run, Connect) or an HTTP handler.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Preset is the budget every session of the server gets.
func (s *Server) Preset() workspace.Preset { return s.preset }

// Run serves one client over t (stdio: &mcp.StdioTransport{}) until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

// Close closes the results store.
func (s *Server) Close() error { return s.st.Close() }

// set opens (once) the public set name; hidden sets are refused before anything of them is read.
func (s *Server) set(name string) (*sets.Set, error) {
	if name == "" {
		name = s.devSetName()
	}
	if sets.IsHidden(name) {
		return nil, hiddenError(fmt.Sprintf("set %s is hidden: its stars, light curves and answers are not shown; use the dev set", name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.sets[name]; ok {
		return set, nil
	}
	var set *sets.Set
	var err error
	if name == s.devSetName() {
		set, err = s.ws.OpenDevSet(s.opts.Run)
	} else {
		set, err = workspace.OpenSet(name, s.opts.Run)
	}
	if err != nil {
		return nil, err
	}
	if set.Hidden() {
		return nil, hiddenError(fmt.Sprintf("set %s is hidden: its stars are not shown", name))
	}
	s.sets[name] = set
	return set, nil
}

// devSetName is the workspace's set of labelled stars.
func (s *Server) devSetName() string {
	if n := s.ws.Config.DevSet; n != "" {
		return n
	}
	return sets.Dev
}

// analysis is star id of set analysed as the terminal UI does (quicklook.Star), from the cache when recent.
func (s *Server) analysis(set *sets.Set, id string) (*quicklook.Analysis, error) {
	if c, ok := findRecent(&s.mu, &s.analyses, func(c cachedAnalysis) bool { return c.set == set.Name && c.id == id }); ok {
		return c.a, nil
	}
	if _, err := set.Info(id); err != nil {
		return nil, notFound(fmt.Sprintf("%v (list_stars gives the ids)", err))
	}
	a, err := quicklook.Star(set, id, 0)
	if err != nil {
		return nil, err
	}
	addRecent(&s.mu, &s.analyses, cachedAnalysis{set.Name, id, a})
	return a, nil
}

// rvTasks loads the RV tasks once.
func (s *Server) rvTasks() ([]*stargazer.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks != nil {
		return s.tasks, nil
	}
	dir, err := stargazer.LocateDir(s.opts.TasksDir)
	if err != nil {
		return nil, err
	}
	tasks, skipped, err := stargazer.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, sk := range skipped {
		s.logf("warning: %s; the file is left out", sk.Error)
	}
	s.tasks = tasks
	return tasks, nil
}

// logf writes a line to the log; what it quotes (a task file's error, a client's) shows control characters as
// escapes (termtext.Text).
func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintln(s.opts.Log, termtext.Text("transitbench mcp: "+fmt.Sprintf(format, args...)))
	}
}

// now is the server's clock (tests move it).
var now = time.Now

// findRecent returns the first item of the cache (s.analyses) that matches, holding mu.
func findRecent[T any](mu *sync.Mutex, cache *[]T, match func(T) bool) (T, bool) {
	mu.Lock()
	defer mu.Unlock()
	for _, v := range *cache {
		if match(v) {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// addRecent adds v to the cache, dropping the oldest item beyond analysisCache, holding mu.
func addRecent[T any](mu *sync.Mutex, cache *[]T, v T) {
	mu.Lock()
	defer mu.Unlock()
	*cache = append(*cache, v)
	if len(*cache) > analysisCache {
		*cache = (*cache)[1:]
	}
}
