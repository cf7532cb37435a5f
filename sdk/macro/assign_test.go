package macro

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAssigner holds the Hungarian method, from scratch and by one changed
// row, to the best of all permutations on random matrices.
func TestAssigner(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 6; n++ {
		for trial := range 50 {
			a := NewAssigner(n)
			for i := range a.cost {
				a.cost[i] = int32(rng.IntN(20))
				if rng.IntN(8) == 0 {
					a.cost[i] = Unmatchable
				}
			}
			if got, want := a.Solve(), brute(a.cost, n); got != want {
				t.Fatalf("n=%d trial %d: solve %d, want %d", n, trial, got, want)
			}
			a.Save()
			r := rng.IntN(n)
			old := slices.Clone(a.cost[r*n : (r+1)*n])
			for j := range n {
				a.cost[r*n+j] = int32(rng.IntN(20))
			}
			if got, want := a.ReplaceRow(r), brute(a.cost, n); got != want {
				t.Fatalf("n=%d trial %d: replaceRow %d, want %d", n, trial, got, want)
			}
			copy(a.cost[r*n:], old)
			a.Restore()
			if got, want := a.Total(), brute(a.cost, n); got != want {
				t.Fatalf("n=%d trial %d: restored %d, want %d", n, trial, got, want)
			}
		}
	}
}

// brute returns the cheapest assignment of an n x n matrix by trying
// every permutation.
func brute(cost []int32, n int) int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := -1
	var rec func(k, sum int)
	rec = func(k, sum int) {
		if k == n {
			if best < 0 || sum < best {
				best = sum
			}
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k+1, sum+int(cost[k*n+perm[k]]))
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0, 0)
	return best
}
