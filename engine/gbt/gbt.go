package gbt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Params configures Train. The zero value of a field takes the default documented beside it.
type Params struct {
	// Trees is the number of boosting rounds (default 200).
	Trees int `json:"trees"`
	// Depth is the largest depth of a tree: a tree of depth d has at most 2^d leaves (default 3).
	Depth int `json:"depth"`
	// Shrinkage η scales every tree's contribution (default 0.1).
	Shrinkage float64 `json:"shrinkage"`
	// MinLeafHessian is the smallest Σ h a leaf may hold, h = p(1 − p) (default 1: about four undecided
	// examples, or many confidently predicted ones).
	MinLeafHessian float64 `json:"min_leaf_hessian"`
	// Lambda is the L2 penalty on leaf values (default 1).
	Lambda float64 `json:"lambda"`
	// Subsample is the share of the rows each tree is grown on, drawn without replacement (default 0.8;
	// 1 uses every row).
	Subsample float64 `json:"subsample"`
	// Seed seeds the row subsampling; equal seeds and data give identical models.
	Seed uint64 `json:"seed"`
}

// Defaults of Params.
const (
	DefaultTrees          = 200
	DefaultDepth          = 3
	DefaultShrinkage      = 0.1
	DefaultMinLeafHessian = 1.0
	DefaultLambda         = 1.0
	DefaultSubsample      = 0.8
)

func (p Params) withDefaults() Params {
	if p.Trees <= 0 {
		p.Trees = DefaultTrees
	}
	if p.Depth <= 0 {
		p.Depth = DefaultDepth
	}
	if !(p.Shrinkage > 0) {
		p.Shrinkage = DefaultShrinkage
	}
	if !(p.MinLeafHessian > 0) {
		p.MinLeafHessian = DefaultMinLeafHessian
	}
	if !(p.Lambda >= 0) || p.Lambda == 0 {
		p.Lambda = DefaultLambda
	}
	if !(p.Subsample > 0) || p.Subsample > 1 {
		p.Subsample = DefaultSubsample
	}
	return p
}

// Errors of Train.
var (
	ErrNoData       = errors.New("gbt: no training examples")
	ErrShape        = errors.New("gbt: examples differ in length or do not match the labels")
	ErrLabel        = errors.New("gbt: labels must be 0 or 1")
	ErrOneClass     = errors.New("gbt: the labels hold a single class")
	ErrFeatureNames = errors.New("gbt: feature names do not match the examples")
	ErrInfinite     = errors.New("gbt: a feature is infinite (use a finite value, or NaN for missing)")
)

// Node is one node of a tree. An internal node sends x to Left when x[Feature] < Threshold and to Right
// otherwise (a NaN feature goes Right); a leaf (Left = Right = 0) adds Value to the margin.
type Node struct {
	Feature   int     `json:"f,omitempty"`
	Threshold float64 `json:"t,omitempty"`
	Left      int     `json:"l,omitempty"`
	Right     int     `json:"r,omitempty"`
	Value     float64 `json:"v,omitempty"`
}

// Tree is a regression tree stored as a node list, root first.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// value returns the leaf value x reaches.
func (t *Tree) value(x []float64) float64 {
	i := 0
	for {
		n := &t.Nodes[i]
		if n.Left == 0 && n.Right == 0 {
			return n.Value
		}
		if x[n.Feature] < n.Threshold {
			i = n.Left
		} else {
			i = n.Right
		}
	}
}

// Model is a trained classifier: the margin of x is F(x) = Base + Σ_trees leaf value (shrinkage already
// applied to the leaf values), and P(y = 1 | x) = 1/(1 + e^(−F(x))).
type Model struct {
	Features []string `json:"features"`
	Params   Params   `json:"params"`
	Base     float64  `json:"base"`
	Trees    []Tree   `json:"trees"`
}

// Margin returns the log-odds F(x). It panics if len(x) differs from the model's number of features.
func (m *Model) Margin(x []float64) float64 {
	if len(x) != len(m.Features) {
		panic(fmt.Sprintf("gbt: example has %d features, the model %d", len(x), len(m.Features)))
	}
	f := m.Base
	for i := range m.Trees {
		f += m.Trees[i].value(x)
	}
	return f
}

// Predict returns P(y = 1 | x) = σ(F(x)).
func (m *Model) Predict(x []float64) float64 { return sigmoid(m.Margin(x)) }

func sigmoid(f float64) float64 { return 1 / (1 + math.Exp(-f)) }

// Train fits a model to examples x (one row of features per example, names giving the features' names) and
// labels y ∈ {0, 1}, minimising the logistic loss L = Σ −[y ln p + (1 − y) ln(1 − p)], p = σ(F).
//
// The model starts from the log-odds of the base rate, F₀ = ln(ȳ/(1 − ȳ)). Each round computes per example the
// gradient g = p − y and Hessian h = p(1 − p) of the loss with respect to F, draws Subsample of the rows (seeded),
// and grows a tree greedily: a node splits on the feature and threshold (midway between consecutive distinct
// values) that maximise the gain G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ) (G, H the sums of g and h), as
// long as the depth allows, both children keep Σh ≥ MinLeafHessian and the gain is positive. A leaf holds
// −η·G/(H + λ), the Newton step shrunk by η. NaN features are sent to the right child, in training as in
// prediction.
func Train(x [][]float64, y []float64, names []string, p Params) (*Model, error) {
	p = p.withDefaults()
	n := len(x)
	if n == 0 {
		return nil, ErrNoData
	}
	if len(y) != n {
		return nil, ErrShape
	}
	nf := len(x[0])
	if len(names) != nf {
		return nil, ErrFeatureNames
	}
	pos := 0.0
	for i := range x {
		if len(x[i]) != nf {
			return nil, ErrShape
		}
		for _, v := range x[i] {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: example %d", ErrInfinite, i)
			}
		}
		switch y[i] {
		case 0:
		case 1:
			pos++
		default:
			return nil, fmt.Errorf("%w: example %d has %g", ErrLabel, i, y[i])
		}
	}
	if pos == 0 || pos == float64(n) {
		return nil, ErrOneClass
	}
	m := &Model{Features: slices.Clone(names), Params: p, Base: math.Log(pos / (float64(n) - pos))}
	// Each feature's example order, sorted once (NaN last).
	order := make([][]int32, nf)
	for f := range nf {
		o := make([]int32, n)
		for i := range o {
			o[i] = int32(i)
		}
		sort.SliceStable(o, func(a, b int) bool { return less(x[o[a]][f], x[o[b]][f]) })
		order[f] = o
	}
	margin := make([]float64, n)
	for i := range margin {
		margin[i] = m.Base
	}
	g := make([]float64, n)
	h := make([]float64, n)
	rng := rand.New(rand.NewPCG(p.Seed, 0x7472616e73697462)) // "transitb"
	perm := make([]int, n)
	in := make([]bool, n)
	nSub := max(1, int(math.Round(p.Subsample*float64(n))))
	gr := &grower{x: x, g: g, h: h, order: order, p: p, node: make([]int32, n)}
	for range p.Trees {
		for i := range n {
			pi := sigmoid(margin[i])
			g[i] = pi - y[i]
			h[i] = pi * (1 - pi)
		}
		for i := range perm {
			perm[i] = i
			in[i] = false
		}
		if nSub < n {
			rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		}
		for _, i := range perm[:nSub] {
			in[i] = true
		}
		t := gr.grow(in)
		for i := range n {
			margin[i] += t.value(x[i])
		}
		m.Trees = append(m.Trees, t)
	}
	return m, nil
}

// less orders numbers ascending with NaN last.
func less(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	return a < b
}

// grower grows one tree level by level over the examples in the round's subsample.
type grower struct {
	x     [][]float64
	g, h  []float64
	order [][]int32
	p     Params
	node  []int32 // the tree node each example sits in; −1 when not in the subsample or in a finished leaf
}

// stats are the gradient and Hessian sums of a node.
type stats struct{ g, h float64 }

// split is the best split found for a node.
type split struct {
	gain      float64
	feature   int
	threshold float64
	left      stats
}

func (s *grower) grow(in []bool) Tree {
	lam := s.p.Lambda
	var root stats
	for i := range s.node {
		if in[i] {
			s.node[i] = 0
			root.g += s.g[i]
			root.h += s.h[i]
		} else {
			s.node[i] = -1
		}
	}
	t := Tree{Nodes: []Node{{}}}
	sums := []stats{root}
	open := []int{0} // nodes of the current level that may split
	for depth := 0; depth < s.p.Depth && len(open) > 0; depth++ {
		best := make(map[int]*split, len(open))
		for _, k := range open {
			best[k] = &split{}
		}
		left := make([]stats, len(t.Nodes))
		for f, o := range s.order {
			for k := range left {
				left[k] = stats{}
			}
			last := make([]float64, len(t.Nodes))
			seen := make([]bool, len(t.Nodes))
			for _, i32 := range o {
				i := int(i32)
				k := int(s.node[i])
				if k < 0 || best[k] == nil {
					continue
				}
				v := s.x[i][f]
				if math.IsNaN(v) {
					continue // NaN goes right: never part of a left side
				}
				if seen[k] && v > last[k] {
					l := left[k]
					r := stats{sums[k].g - l.g, sums[k].h - l.h}
					if l.h >= s.p.MinLeafHessian && r.h >= s.p.MinLeafHessian {
						gain := l.g*l.g/(l.h+lam) + r.g*r.g/(r.h+lam) - sums[k].g*sums[k].g/(sums[k].h+lam)
						if b := best[k]; gain > b.gain {
							*b = split{gain: gain, feature: f, threshold: last[k] + (v-last[k])/2, left: l}
						}
					}
				}
				left[k].g += s.g[i]
				left[k].h += s.h[i]
				last[k], seen[k] = v, true
			}
		}
		var next []int
		for _, k := range open {
			b := best[k]
			if b.gain <= 0 {
				continue
			}
			l := len(t.Nodes)
			t.Nodes = append(t.Nodes, Node{}, Node{})
			sums = append(sums, b.left, stats{sums[k].g - b.left.g, sums[k].h - b.left.h})
			t.Nodes[k] = Node{Feature: b.feature, Threshold: b.threshold, Left: l, Right: l + 1}
			next = append(next, l, l+1)
		}
		// Move the examples of the split nodes to their children.
		for i, k := range s.node {
			if k < 0 {
				continue
			}
			n := &t.Nodes[k]
			if n.Left == 0 && n.Right == 0 {
				continue
			}
			if s.x[i][n.Feature] < n.Threshold {
				s.node[i] = int32(n.Left)
			} else {
				s.node[i] = int32(n.Right)
			}
		}
		open = next
	}
	for k := range t.Nodes {
		if t.Nodes[k].Left == 0 && t.Nodes[k].Right == 0 {
			t.Nodes[k].Value = -s.p.Shrinkage * sums[k].g / (sums[k].h + lam)
		}
	}
	return t
}
