// Package mcpserver is the agent operator's front end: a Model Context Protocol server (the official Go SDK)
// over the same engine as the terminal UI and the command line. Its tools cover both tracks — the transit
// track's stars, BLS, folds, vetting, figures (PNG image content), dev runs with progress notifications and
// grading; the RV track's tasks, fits, figures and submissions through the same ledger — and its resources are
// TASK.md, the output format, the scoring rules and the baseline ladder. Each tool calls the layer the command
// line calls (workspace, workspace/quicklook, workspace/figure, workspace/rvtrack, engine/bls, grader/store), so
// answers, refusals and hidden-set rules are the command line's. Every tool call of an MCP session is counted,
// timed and recorded in the results store (store.AgentSession); past the workspace preset's budget (turns,
// tokens, hours) grade and rv_submit are refused and the refusal recorded. `transitbench mcp` serves it over
// stdio or streamable HTTP.
package mcpserver
