package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resource templates (resources/templates/list): one resource per star of the workspace's dev set and one
// per RV task, read with resources/read. A hidden star is neither listed nor read.
const (
	URIStarPrefix = "transitbench://star/"
	URIRVPrefix   = "transitbench://rv/"
)

// RVTaskResource is an RV task's resource: its row of rv_list. The observations are rv_start's: reading the
// resource does not start the task's clock, so it holds nothing of the data but their counts and span.
type RVTaskResource struct {
	RVTaskRow
	Next string `json:"next"`
}

func (s *Server) addTemplates() {
	add := func(tmpl, name, title, desc string, read func(ctx context.Context, key string) (any, error)) {
		prefix := strings.TrimSuffix(tmpl, "{id}")
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tmpl, Name: name, Title: title, Description: desc,
			MIMEType: "application/json"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				uri := req.Params.URI
				key, ok := strings.CutPrefix(uri, prefix)
				if !ok || key == "" || strings.Contains(key, "/") {
					return nil, mcp.ResourceNotFoundError(uri)
				}
				v, err := read(ctx, key)
				if err != nil {
					return nil, err
				}
				b, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
			})
	}
	add(URIStarPrefix+"{id}", "dev-star", "A dev star",
		"A star of the workspace's dev set (ids from list_stars): its metadata, cadence counts, last outcome and truth, as star_info gives them. Hidden stars are not served.",
		func(ctx context.Context, id string) (any, error) {
			_, out, err := s.starInfo(ctx, nil, StarIn{Star: id})
			return out, err
		})
	add(URIRVPrefix+"{id}", "rv-task", "An RV task",
		"An RV task (ids from rv_list): its tier, observation count, instruments, span, budget and submissions used. rv_start starts the task's clock and gives the observations.",
		func(ctx context.Context, id string) (any, error) {
			t, err := s.task(id)
			if err != nil {
				return nil, err
			}
			_, list, err := s.rvList(ctx, nil, RVListIn{})
			if err != nil {
				return nil, err
			}
			for _, r := range list.Tasks {
				if r.Task == t.TaskID {
					return RVTaskResource{RVTaskRow: r, Next: "rv_start " + t.TaskID + " starts the task's clock and gives the observations"}, nil
				}
			}
			return nil, notFound("task " + id + " is not listed")
		})
}
