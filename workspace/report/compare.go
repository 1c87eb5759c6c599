package report

import (
	"context"
	"fmt"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// pair is two public runs on one set, a the older.
type pair struct {
	a, b int64
	set  string
}

func (c pair) link() Link {
	return Link{Href: compareHref(c.a, c.b), Text: fmt.Sprintf("run %d → run %d (%s)", c.a, c.b, c.set)}
}

// comparePairs pairs every public run with the previous public run on the same set: the question "what did
// my change break?" asked of each run.
func comparePairs(runs []store.Run) []pair {
	var out []pair
	for i, r := range runs { // newest first
		if !public(r) {
			continue
		}
		for _, older := range runs[i+1:] {
			if public(older) && older.Set == r.Set {
				out = append(out, pair{older.ID, r.ID, r.Set})
				break
			}
		}
	}
	return out
}

func compareLinks(runs []store.Run) []Link {
	var out []Link
	for _, c := range comparePairs(runs) {
		out = append(out, c.link())
	}
	return out
}

// ComparePage lists the stars whose outcome changed from run A to run B, with what each change did to S.
type ComparePage struct {
	A, B         RunLine
	Changed      []Change
	Same         int
	OnlyA, OnlyB int
	// Planets is the number of scored planets S is divided by (run B's stars); DeltaS the sum of the changes.
	Planets int
	DeltaS  float64
}

// Change is a star's outcome in both runs.
type Change struct {
	ID, From, To         string
	CreditFrom, CreditTo float64
	FalseFrom, FalseTo   int
	Page                 string
	Better, Worse        bool
	// DeltaS is the change's contribution to S: ((credit − false) in B − (credit − false) in A) / planets.
	DeltaS float64
}

// comparePage compares two public runs; a hidden run is refused (its stars are not shown).
func (s *Site) comparePage(ctx context.Context, a, b int64) (*ComparePage, error) {
	var rs [2]store.Run
	var outs [2]map[string]store.Outcome
	for i, id := range []int64{a, b} {
		r, err := s.run(ctx, id)
		if err != nil {
			return nil, err
		}
		if !public(r) {
			return nil, fmt.Errorf("run %d is on hidden set %s: %w", id, r.Set, workspace.ErrHiddenStar)
		}
		list, err := s.st.Outcomes(ctx, id)
		if err != nil {
			return nil, err
		}
		outs[i] = map[string]store.Outcome{}
		for _, o := range list {
			outs[i][o.StarID] = o
		}
		rs[i] = r
	}
	p := &ComparePage{A: runLine(rs[0]), B: runLine(rs[1])}
	for id, oa := range outs[0] {
		ob, ok := outs[1][id]
		if !ok {
			p.OnlyA++
			continue
		}
		if oa.Status == ob.Status && oa.Credit == ob.Credit && oa.False == ob.False {
			p.Same++
			continue
		}
		c := Change{ID: id, From: oa.Status, To: ob.Status, CreditFrom: oa.Credit, CreditTo: ob.Credit,
			FalseFrom: oa.False, FalseTo: ob.False}
		c.Better = ob.Credit > oa.Credit || ob.Credit == oa.Credit && ob.False < oa.False
		c.Worse = ob.Credit < oa.Credit || ob.Credit == oa.Credit && ob.False > oa.False
		if starPaged(rs[1], id) {
			c.Page = starHref(id)
		}
		p.Changed = append(p.Changed, c)
	}
	for id := range outs[1] {
		if _, ok := outs[0][id]; !ok {
			p.OnlyB++
		}
	}
	p.Planets = scoredPlanets(outs[1])
	if p.Planets > 0 {
		for i := range p.Changed {
			c := &p.Changed[i]
			c.DeltaS = (c.CreditTo - float64(c.FalseTo) - c.CreditFrom + float64(c.FalseFrom)) / float64(p.Planets)
			p.DeltaS += c.DeltaS
		}
	}
	sortChanges(p.Changed)
	return p, nil
}

// scoredPlanets counts the scored planets of a run's outcomes (grader.Summary's planets, S's denominator).
func scoredPlanets(outs map[string]store.Outcome) int {
	var results []grader.StarResult
	for _, o := range outs {
		if r, err := workspace.StarResultOf(o); err == nil {
			results = append(results, r)
		}
	}
	return grader.Summarize(results).Planets
}
