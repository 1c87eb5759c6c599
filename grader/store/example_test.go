package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"transitbench/grader/store"
)

// A dev run that is interrupted after two stars and resumed: DoneStars tells which stars to skip.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "home")
	defer os.RemoveAll(dir)
	s, err := store.Open(filepath.Join(dir, store.FileName))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	run, _ := s.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", SolutionHash: "sha256:1f2e", Stars: 3})
	for _, star := range []string{"dev-0000", "dev-0001"} {
		s.PutOutcome(ctx, store.Outcome{RunID: run, StarID: star, Status: "hit", Credit: 1,
			Rows: json.RawMessage(`[{"period_days":3.52,"t0_days":134.1,"score":12}]`)})
	}
	// … the program stops here; later, the same run resumes:
	done, _ := s.DoneStars(ctx, run)
	for _, star := range []string{"dev-0000", "dev-0001", "dev-0002"} {
		if done[star] {
			continue
		}
		s.PutOutcome(ctx, store.Outcome{RunID: run, StarID: star, Status: "missed"})
	}
	s.FinishRun(ctx, run, store.StatusDone, json.RawMessage(`{"S":0.667}`))

	outs, _ := s.Outcomes(ctx, run)
	r, _ := s.Run(ctx, run)
	fmt.Println(len(done), "stars skipped;", len(outs), "outcomes; run", r.Status, string(r.Summary))
	// Output: 2 stars skipped; 3 outcomes; run done {"S":0.667}
}
