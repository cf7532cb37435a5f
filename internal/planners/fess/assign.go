package fess

// unassignable is the cost of a box that cannot reach a square: large
// enough that an assignment holding one costs more than any without
// (Festival's 1000000).
const unassignable = 1000000

// assigner finds least-cost assignments of boxes to squares (the
// Hungarian method with potentials, O(n³)), and the cost of the same
// problem with one row changed from a solved one in O(n²): the moves of a
// position change one box each.
type assigner struct {
	n    int
	cost []int64 // row-major, n*n
	// Potentials and assignment, 1-based as in the classic formulation:
	// col[j] is the row assigned to column j, 0 for none.
	u, v     []int64
	col, way []int
	minv     []int64
	used     []bool
	bu, bv   []int64 // the solved problem's, kept for rowCost
	bcol     []int
	rowBuf   []int64
}

// reset sizes the problem to n rows and columns.
func (a *assigner) reset(n int) {
	a.n = n
	grow := func(s []int64, k int) []int64 {
		if cap(s) < k {
			return make([]int64, k)
		}
		return s[:k]
	}
	growI := func(s []int, k int) []int {
		if cap(s) < k {
			return make([]int, k)
		}
		return s[:k]
	}
	a.cost = grow(a.cost, n*n)
	a.u, a.v, a.minv = grow(a.u, n+1), grow(a.v, n+1), grow(a.minv, n+1)
	a.bu, a.bv = grow(a.bu, n+1), grow(a.bv, n+1)
	a.col, a.way, a.bcol = growI(a.col, n+1), growI(a.way, n+1), growI(a.bcol, n+1)
	a.rowBuf = grow(a.rowBuf, n)
	if cap(a.used) < n+1 {
		a.used = make([]bool, n+1)
	}
	a.used = a.used[:n+1]
}

// solve returns the least cost of the assignment of cost and keeps the
// solution for rowCost.
func (a *assigner) solve() int64 {
	n := a.n
	clear(a.u)
	clear(a.v)
	clear(a.col)
	for i := 1; i <= n; i++ {
		a.augment(i, a.cost[(i-1)*n:i*n])
	}
	copy(a.bu, a.u)
	copy(a.bv, a.v)
	copy(a.bcol, a.col)
	return a.total(-1, nil)
}

// rowCost returns the least cost of the solved problem with row r (from
// 0) replaced by row, leaving the solved problem as it was.
func (a *assigner) rowCost(r int, row []int64) int64 {
	n := a.n
	copy(a.u, a.bu)
	copy(a.v, a.bv)
	copy(a.col, a.bcol)
	i := r + 1
	for j := 1; j <= n; j++ {
		if a.col[j] == i {
			a.col[j] = 0
		}
	}
	// Keep row i's reduced costs non-negative under the other rows'
	// potentials.
	m := int64(1) << 62
	for j := 1; j <= n; j++ {
		m = min(m, row[j-1]-a.v[j])
	}
	a.u[i] = m
	a.augment(i, row)
	return a.total(r, row)
}

// augment adds row i, whose costs are row, to the assignment.
func (a *assigner) augment(i int, row []int64) {
	n := a.n
	const big = int64(1) << 62
	a.col[0] = i
	j0 := 0
	for j := range a.minv {
		a.minv[j] = big
		a.used[j] = false
	}
	for {
		a.used[j0] = true
		i0 := a.col[j0]
		delta, j1 := big, 0
		for j := 1; j <= n; j++ {
			if a.used[j] {
				continue
			}
			var c int64
			if i0 == i {
				c = row[j-1]
			} else {
				c = a.cost[(i0-1)*n+j-1]
			}
			if cur := c - a.u[i0] - a.v[j]; cur < a.minv[j] {
				a.minv[j], a.way[j] = cur, j0
			}
			if a.minv[j] < delta {
				delta, j1 = a.minv[j], j
			}
		}
		for j := 0; j <= n; j++ {
			if a.used[j] {
				a.u[a.col[j]] += delta
				a.v[j] -= delta
			} else {
				a.minv[j] -= delta
			}
		}
		j0 = j1
		if a.col[j0] == 0 {
			break
		}
	}
	for j0 != 0 {
		j1 := a.way[j0]
		a.col[j0] = a.col[j1]
		j0 = j1
	}
}

// total returns the cost of the current assignment, row r (from 0) read
// from row when r >= 0.
func (a *assigner) total(r int, row []int64) int64 {
	n := a.n
	sum := int64(0)
	for j := 1; j <= n; j++ {
		i := a.col[j] - 1
		if i == r {
			sum += row[j-1]
		} else {
			sum += a.cost[i*n+j-1]
		}
	}
	return sum
}
