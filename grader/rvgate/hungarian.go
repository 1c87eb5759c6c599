package rvgate

import "math"

// Assign solves the rectangular assignment problem: given an n×m cost matrix (cost[i][j] finite), it pairs
// min(n, m) rows with distinct columns so that the summed cost is least, and returns for each row its column
// (−1 for rows left unpaired when n > m). It is the O(n²m) Hungarian method with potentials (Kuhn 1955,
// Munkres 1957, in the shortest-augmenting-path form of Jonker & Volgenant 1987).
func Assign(cost [][]float64) []int {
	n := len(cost)
	if n == 0 {
		return nil
	}
	m := len(cost[0])
	if m == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = -1
		}
		return out
	}
	if n > m {
		// Solve the transpose so that rows ≤ columns.
		t := make([][]float64, m)
		for j := range t {
			t[j] = make([]float64, n)
			for i := range n {
				t[j][i] = cost[i][j]
			}
		}
		colOf := Assign(t)
		out := make([]int, n)
		for i := range out {
			out[i] = -1
		}
		for j, i := range colOf {
			out[i] = j
		}
		return out
	}
	// 1-based potentials u (rows), v (columns); p[j] is the row matched to column j.
	u := make([]float64, n+1)
	v := make([]float64, m+1)
	p := make([]int, m+1)
	way := make([]int, m+1)
	minv := make([]float64, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := cost[i0-1][j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	out := make([]int, n)
	for j := 1; j <= m; j++ {
		if p[j] > 0 {
			out[p[j]-1] = j - 1
		}
	}
	return out
}
