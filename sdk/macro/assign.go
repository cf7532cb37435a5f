package macro

// Minimum-cost assignment of boxes to squares.
//
// Planners estimate a position by the cheapest way to give every box its
// own square of a set (goals, another position's boxes), each pair costing
// the lone-box push distance between them. Assigner solves it by the
// Hungarian method with potentials (the shortest augmenting path form, one
// row at a time), O(n^3) for a position. A macro move changes one box, one
// row of the cost matrix: taking that row out of the matching and adding
// it back with its new costs is one augmentation, O(n^2), from the
// parent's potentials, which stay feasible for the other rows. So a search
// solves each expanded position once and each child incrementally.

// Unmatchable is the cost of a pair that cannot be matched (a box that
// cannot reach the square). It dominates any real matching, so a total at
// or above it means no perfect matching exists.
const Unmatchable = 1 << 20

// Assigner solves square assignment problems of one size. Arrays are
// 1-based as in the classic formulation: index 0 is the virtual row and
// column of the augmentation. The zero value is not ready; use
// NewAssigner.
type Assigner struct {
	n    int
	cost []int32 // n x n, row-major, 0-based
	u, v []int32 // potentials of rows and columns
	p    []int32 // p[j]: the row matched to column j, 0 for none
	way  []int32
	minv []int32
	used []bool
	// saved is a solved matrix's state (pushState's layout), for its
	// children.
	saved []int32
}

// NewAssigner returns an assigner of n rows and columns.
func NewAssigner(n int) *Assigner {
	m := n + 1
	return &Assigner{n: n, cost: make([]int32, n*n),
		u: make([]int32, m), v: make([]int32, m), p: make([]int32, m), way: make([]int32, m), minv: make([]int32, m), used: make([]bool, m),
		saved: make([]int32, 0, 3*m)}
}

// Row returns row r's costs (from 0), to fill before Solve or to change
// before ReplaceRow.
func (a *Assigner) Row(r int) []int32 { return a.cost[r*a.n : (r+1)*a.n] }

// Solve finds a minimum-cost matching of the whole matrix from scratch and
// returns its cost.
func (a *Assigner) Solve() int {
	clear(a.u)
	clear(a.v)
	clear(a.p)
	for i := 1; i <= a.n; i++ {
		a.addRow(int32(i))
	}
	return a.Total()
}

// Save keeps the current solution, Restore returns to it.
func (a *Assigner) Save() { a.saved = a.PushState(a.saved[:0]) }

// Restore returns to the solution Save kept.
func (a *Assigner) Restore() { a.PopState(a.saved) }

// PushState appends the current solution to stack, PopState returns to
// the last one pushed and drops it: Save and Restore for a walk down a
// tree of positions.
func (a *Assigner) PushState(stack []int32) []int32 {
	return append(append(append(stack, a.u...), a.v...), a.p...)
}

// PopState returns to the solution PushState pushed last and drops it.
func (a *Assigner) PopState(stack []int32) []int32 {
	m := len(a.u)
	k := len(stack) - 3*m
	copy(a.u, stack[k:k+m])
	copy(a.v, stack[k+m:k+2*m])
	copy(a.p, stack[k+2*m:])
	return stack[:k]
}

// ReplaceRow re-solves after row r's costs changed (0-based r): it frees
// the row's column and adds the row back. It returns the new cost.
func (a *Assigner) ReplaceRow(r int) int {
	row := int32(r + 1)
	for j := 1; j <= a.n; j++ {
		if a.p[j] == row {
			a.p[j] = 0
		}
	}
	a.addRow(row)
	return a.Total()
}

// Total returns the cost of the current matching.
func (a *Assigner) Total() int {
	t := 0
	for j := 1; j <= a.n; j++ {
		t += int(a.cost[int(a.p[j]-1)*a.n+j-1])
	}
	return t
}

// addRow adds row i to the matching by one shortest augmenting path.
func (a *Assigner) addRow(i int32) {
	const inf = int32(1 << 30)
	n := a.n
	a.p[0] = i
	j0 := int32(0)
	for j := range a.minv {
		a.minv[j] = inf
		a.used[j] = false
	}
	for {
		a.used[j0] = true
		i0 := a.p[j0]
		delta, j1 := inf, int32(0)
		row := a.cost[int(i0-1)*n : int(i0)*n]
		ui := a.u[i0]
		for j := 1; j <= n; j++ {
			if a.used[j] {
				continue
			}
			if cur := row[j-1] - ui - a.v[j]; cur < a.minv[j] {
				a.minv[j] = cur
				a.way[j] = j0
			}
			if a.minv[j] < delta {
				delta, j1 = a.minv[j], int32(j)
			}
		}
		for j := 0; j <= n; j++ {
			if a.used[j] {
				a.u[a.p[j]] += delta
				a.v[j] -= delta
			} else {
				a.minv[j] -= delta
			}
		}
		j0 = j1
		if a.p[j0] == 0 {
			break
		}
	}
	for j0 != 0 {
		j1 := a.way[j0]
		a.p[j0] = a.p[j1]
		j0 = j1
	}
}
