package rvgate

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestAssignHand(t *testing.T) {
	cases := []struct {
		cost [][]float64
		want []int
	}{
		// The greedy choice (row 0 → col 0, cost 1) forces row 1 onto cost 100; the optimum crosses over (2 + 3).
		{[][]float64{{1, 2}, {3, 100}}, []int{1, 0}},
		// Identity is optimal.
		{[][]float64{{0, 5, 5}, {5, 0, 5}, {5, 5, 0}}, []int{0, 1, 2}},
		// More columns than rows: row 0 takes column 2.
		{[][]float64{{9, 8, 1}}, []int{2}},
		// More rows than columns: only the cheaper row gets the column.
		{[][]float64{{4}, {2}, {7}}, []int{-1, 0, -1}},
		// Ties and a rectangular 2×3 case: rows take columns 2 and 0 (total 1 + 1).
		{[][]float64{{5, 5, 1}, {1, 5, 5}}, []int{2, 0}},
	}
	for _, c := range cases {
		got := Assign(c.cost)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Assign(%v) = %v, want %v", c.cost, got, c.want)
				break
			}
		}
	}
}

// bruteAssign returns the least total cost over all injective maps of rows into columns (n ≤ m).
func bruteAssign(cost [][]float64) float64 {
	n, m := len(cost), len(cost[0])
	best := math.Inf(1)
	used := make([]bool, m)
	var rec func(i int, sum float64)
	rec = func(i int, sum float64) {
		if i == n {
			best = math.Min(best, sum)
			return
		}
		for j := range m {
			if !used[j] {
				used[j] = true
				rec(i+1, sum+cost[i][j])
				used[j] = false
			}
		}
	}
	rec(0, 0)
	return best
}

func TestAssignAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 300 {
		n := 1 + r.IntN(5)
		m := n + r.IntN(3)
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, m)
			for j := range cost[i] {
				cost[i][j] = float64(r.IntN(10)) // small integers: many ties
			}
		}
		got := Assign(cost)
		sum := 0.0
		seen := map[int]bool{}
		for i, j := range got {
			if j < 0 || seen[j] {
				t.Fatalf("trial %d: invalid assignment %v", trial, got)
			}
			seen[j] = true
			sum += cost[i][j]
		}
		if want := bruteAssign(cost); sum != want {
			t.Fatalf("trial %d: cost %g, brute force %g (%v)", trial, sum, want, cost)
		}
	}
}
