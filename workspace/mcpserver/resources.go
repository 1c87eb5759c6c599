package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/workspace/baselines"
)

// The resources' URIs.
const (
	URITask    = "transitbench://task/TASK.md"
	URIFormat  = "transitbench://task/output-format"
	URIScoring = "transitbench://task/scoring"
	URILadder  = "transitbench://baselines/ladder"
)

// rvRules is the RV track's part of the scoring rules (SPEC B3), as 'transitbench rv submit --help' states them.
const rvRules = `
## The RV track: the four-criterion gate

A submission passes a task when all four hold: ok_rms (the RMS of the residuals ≤ 1.5 × the median quoted
error), ok_delta_bic (ΔBIC/N against the no-planet model > 0), ok_match (the submitted planets match the true
ones in period and amplitude) and ok_count (the right number of planets). Feedback names the verdict of each
criterion and the scalars the data alone determine, never the truth. Budgets per tier: easy 3 submissions /
600 s / 200k tokens, medium 5 / 900 s / 450k, hard and real 10 / 1500 s / 900k; a task's clock starts when it
is started (rv_start, which gives its data; rv_show and rv_list start nothing) or at its first submission. A submission over the time or token budget is graded and recorded
but never makes the task passed.

Beside the original gate, feedback says whether the submission passes two others that differ only in the
match: strict (passed_strict: the match score divided by the number of true planets rather than of matched
pairs, so missing planets cost) and calibrated (passed_calibrated: every true planet matched with P, K and e
within 3σ of the uncertainties the data give at the truth). Each is one bit and reveals nothing else.
`

func (s *Server) addResources() {
	add := func(uri, name, title, mime string, read func() (string, error)) {
		s.mcp.AddResource(&mcp.Resource{URI: uri, Name: name, Title: title, MIMEType: mime},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				text, err := read()
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
			})
	}
	add(URITask, "TASK.md", "The task: what to find, what the pipeline sees and prints, scoring, budget", "text/markdown", s.taskMD)
	add(URIFormat, "output-format", "What a solution prints on each star", "text/markdown", func() (string, error) {
		return s.taskSection("What it prints")
	})
	add(URIScoring, "scoring", "How rows are matched and scored; the RV gate", "text/markdown", func() (string, error) {
		t, err := s.taskSection("How rows are matched and scored")
		return t + rvRules, err
	})
	add(URILadder, "baseline-ladder", "The baseline ladder: S, C, F of the reference pipelines on A, B and dev", "application/json", s.ladder)
}

// taskMD is the workspace's TASK.md.
func (s *Server) taskMD() (string, error) {
	b, err := os.ReadFile(filepath.Join(s.ws.Root, "TASK.md"))
	if err != nil {
		return "", fmt.Errorf("reading the workspace's TASK.md: %w (make the workspace again with 'transitbench init')", err)
	}
	return string(b), nil
}

// taskSection is the "## heading" section of TASK.md, heading included.
func (s *Server) taskSection(heading string) (string, error) {
	md, err := s.taskMD()
	if err != nil {
		return "", err
	}
	i := strings.Index(md, "## "+heading)
	if i < 0 {
		return "", fmt.Errorf("TASK.md has no section %q", heading)
	}
	sec := md[i:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+4]
	}
	return strings.TrimSpace(sec) + "\n", nil
}

// ladder is the baseline ladder's table: Options.LadderFile when given, else the data directory's own or the
// one compiled into the program (baselines.Ladder, as the results site shows it).
func (s *Server) ladder() (string, error) {
	if s.opts.LadderFile == "" {
		t, _, err := baselines.Ladder(s.home)
		if err != nil {
			return "", err
		}
		b, err := json.MarshalIndent(t, "", "  ")
		return string(b), err
	}
	b, err := os.ReadFile(s.opts.LadderFile)
	if err != nil {
		return "", fmt.Errorf("reading the baseline ladder: %w", err)
	}
	return string(b), nil
}
