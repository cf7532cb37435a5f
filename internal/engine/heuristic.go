package engine

import (
	"fmt"
	"slices"
)

// Rule says how a Heuristic combines its box-to-goal costs into one bound.
type Rule uint8

// The combining rules.
const (
	// RuleSumMin is the sum over boxes of the box's cheapest goal. Admissible
	// when the costs are; goals may be counted for several boxes.
	RuleSumMin Rule = iota
	// RuleGreedy matches box-goal pairs in increasing cost order, then sends
	// every unmatched box to its cheapest goal. Fast, but the sum can exceed
	// the minimum matching and even the true remaining pushes, so it is not
	// admissible in general.
	RuleGreedy
	// RuleMatching is the cost of a minimum-cost perfect matching of boxes to
	// goals (Hungarian method, shortest augmenting paths, updated one row per
	// push). Admissible when the costs are; infinite when no perfect matching
	// exists, which is the bipartite deadlock.
	RuleMatching
)

// String names the rule.
func (r Rule) String() string {
	switch r {
	case RuleSumMin:
		return "sum-min"
	case RuleGreedy:
		return "greedy"
	case RuleMatching:
		return "matching"
	}
	return fmt.Sprintf("Rule(%d)", uint8(r))
}

// Heuristic is a lower bound compiled to tables the engine evaluates
// natively: a cost table box square x goal, a combining rule, and whether the
// result never overestimates the pushes left (needed for proofs of
// optimality).
type Heuristic struct {
	// Name identifies the heuristic in results and errors.
	Name string
	// Costs[sq*goals+goal] is the cost of bringing a box on square sq to the
	// goal, or Inf if it can never get there. len = Squares*len(Goals) (the
	// sentinel row may be included too).
	Costs []uint16
	// RegionCosts, when set, refines Costs by where the player is:
	// RegionCosts[(sq*Regions+region)*goals+goal] with region as
	// Board.Region(sq, player) gives it; len = Squares*Regions*len(Goals)
	// (the sentinel rows may be included). The engine then costs each box
	// by the region that holds the player, which for the built-in push
	// distances makes the bound consistent: a push changes the pushed box's
	// cost by at most one and no other box's.
	RegionCosts []uint16
	// Rule combines the costs.
	Rule Rule
	// Admissible says the bound never exceeds the true number of pushes left.
	Admissible bool
}

// check validates h against the board.
func (h *Heuristic) check(b *Board) error {
	if h == nil {
		return fmt.Errorf("engine: no heuristic")
	}
	g := len(b.Goals)
	if len(h.Costs) != b.Squares*g && len(h.Costs) != (b.Squares+1)*g {
		return fmt.Errorf("engine: heuristic %q has %d costs, want %d squares x %d goals", h.Name, len(h.Costs), b.Squares, g)
	}
	if n := len(h.RegionCosts); n != 0 && n != b.Squares*Regions*g && n != (b.Squares+1)*Regions*g {
		return fmt.Errorf("engine: heuristic %q has %d region costs, want %d squares x %d regions x %d goals", h.Name, n, b.Squares, Regions, g)
	}
	if h.Rule > RuleMatching {
		return fmt.Errorf("engine: heuristic %q has unknown rule %d", h.Name, h.Rule)
	}
	return nil
}

// infCost is the bound the evaluators return for a deadlock.
const infCost = 1 << 30

// evaluator computes a heuristic for the boxes of the search position. Box i
// of the evaluator is box i of the position; each box is costed by a row of
// the cost table, its square's row, or with region costs its square's row
// for the region that holds the player. All scratch space is allocated once
// in newEvaluator.
type evaluator struct {
	b       *Board
	rule    Rule
	costs   []uint16 // rows of goals costs; the last row is all Inf
	regions bool     // rows are sq*Regions+region
	goals   int
	n       int

	// sum-min
	minCost []int32 // per row, min over goals; infCost when none

	// matching state, by box (row) and goal (column).
	m *matcher

	// greedy scratch
	pairs   []uint64
	rowDone []bool
	colDone []bool
	rows    []int32 // current row of each box
}

func newEvaluator(b *Board, h *Heuristic, boxes int) *evaluator {
	g := len(b.Goals)
	e := &evaluator{b: b, rule: h.Rule, costs: h.Costs, goals: g, n: boxes}
	rows := b.Squares
	if len(h.RegionCosts) > 0 {
		e.costs, e.regions, rows = h.RegionCosts, true, b.Squares*Regions
	}
	// One more row, all Inf, for the wall sentinel.
	e.costs = append(slices.Clip(e.costs[:rows*g]), make([]uint16, g)...)
	for j := 0; j < g; j++ {
		e.costs[rows*g+j] = Inf
	}
	e.minCost = make([]int32, rows+1)
	for r := range e.minCost {
		m := int32(infCost)
		for j := 0; j < g; j++ {
			if c := e.costs[r*g+j]; c != Inf && int32(c) < m {
				m = int32(c)
			}
		}
		e.minCost[r] = m
	}
	switch h.Rule {
	case RuleMatching:
		e.m = newMatcher(boxes, g, e.costs)
	case RuleGreedy:
		e.pairs = make([]uint64, 0, boxes*g)
		e.rowDone = make([]bool, boxes)
		e.colDone = make([]bool, g)
	}
	e.rows = make([]int32, boxes)
	return e
}

// row returns the cost row of a box on sq with the player on square player.
func (e *evaluator) row(sq, player uint16) int32 {
	if !e.regions {
		return int32(sq)
	}
	return int32(sq)*Regions + int32(e.b.Region(sq, player))
}

// sync makes boxes, with the player on square player, the evaluator's
// current position and returns its bound (infCost or more for a deadlock).
// Cheap when few rows differ from the previous current position.
func (e *evaluator) sync(boxes []uint16, player uint16) int {
	for i, b := range boxes {
		e.rows[i] = e.row(b, player)
	}
	switch e.rule {
	case RuleMatching:
		return e.m.sync(e.rows)
	case RuleGreedy:
		return e.greedy(e.rows)
	default:
		s := 0
		for _, r := range e.rows {
			s += int(e.minCost[r])
		}
		return min(s, infCost)
	}
}

// child returns the bound of the current position with box i pushed to
// square to from square from (where the player then stands), given the
// current position's bound cur, without changing the current position.
// The other boxes keep their rows: the player moves between two adjacent
// squares, neither of them another box, so it stays in the same region
// around every other box.
func (e *evaluator) child(cur int, i int, to, from uint16) int {
	nr := e.row(to, from)
	switch e.rule {
	case RuleMatching:
		return e.m.tryRow(i, nr)
	case RuleGreedy:
		old := e.rows[i]
		e.rows[i] = nr
		v := e.greedy(e.rows)
		e.rows[i] = old
		return v
	default:
		if cur >= infCost {
			return cur
		}
		return min(cur-int(e.minCost[e.rows[i]])+int(e.minCost[nr]), infCost)
	}
}

func (e *evaluator) greedy(rows []int32) int {
	g := e.goals
	e.pairs = e.pairs[:0]
	for i, b := range rows {
		row := e.costs[int(b)*g : int(b)*g+g]
		any := false
		for j, c := range row {
			if c != Inf {
				e.pairs = append(e.pairs, uint64(c)<<32|uint64(i)<<16|uint64(j))
				any = true
			}
		}
		if !any {
			return infCost
		}
	}
	slices.Sort(e.pairs)
	clear(e.rowDone)
	clear(e.colDone)
	total, matched := 0, 0
	for _, p := range e.pairs {
		i, j := int(p>>16&0xFFFF), int(p&0xFFFF)
		if e.rowDone[i] || e.colDone[j] {
			continue
		}
		e.rowDone[i], e.colDone[j] = true, true
		total += int(p >> 32)
		matched++
		if matched == len(rows) {
			break
		}
	}
	if matched < len(rows) {
		for i, b := range rows {
			if !e.rowDone[i] {
				total += int(e.minCost[b])
			}
		}
	}
	return min(total, infCost)
}

// matcher maintains a minimum-cost perfect matching of n rows (boxes) to n
// columns (goals) with dual potentials, by shortest augmenting paths (the
// Jonker-Volgenant / Crouse formulation). Moving one box changes one row; the
// matching is repaired by unassigning that row and augmenting once, O(n^2).
// Unreachable pairs cost infCost, so a total of infCost or more means no
// perfect matching over reachable pairs exists.
type matcher struct {
	n      int
	g      int // columns per cost row (number of goals)
	costs  []uint16
	sq     []int32 // current cost row of each box
	u, v   []int64
	col    []int32 // col[i] = column of row i, -1 when free
	row    []int32 // row[j] = row of column j, -1 when free
	total  int64   // cost of the current matching
	sync0  bool    // rows have been synced once
	inited []bool

	// augment scratch
	spc       []int64
	path      []int32
	sr, sc    []bool
	remaining []int32

	// saved state for tryRow
	su, sv     []int64
	scol, srow []int32
}

func newMatcher(n, g int, costs []uint16) *matcher {
	m := &matcher{n: n, g: g, costs: costs}
	m.sq = make([]int32, n)
	m.u = make([]int64, n)
	m.v = make([]int64, g)
	m.col = make([]int32, n)
	m.row = make([]int32, g)
	m.inited = make([]bool, n)
	m.spc = make([]int64, g)
	m.path = make([]int32, g)
	m.sr = make([]bool, n)
	m.sc = make([]bool, g)
	m.remaining = make([]int32, g)
	m.su = make([]int64, n)
	m.sv = make([]int64, g)
	m.scol = make([]int32, n)
	m.srow = make([]int32, g)
	for i := range m.col {
		m.col[i] = -1
	}
	for j := range m.row {
		m.row[j] = -1
	}
	return m
}

func (m *matcher) cost(i, j int) int64 {
	c := m.costs[int(m.sq[i])*m.g+j]
	if c == Inf {
		return infCost
	}
	return int64(c)
}

// unassign frees row i.
func (m *matcher) unassign(i int) {
	if j := m.col[i]; j >= 0 {
		m.row[j] = -1
		m.col[i] = -1
	}
}

// sync moves the boxes whose cost row changed and repairs the matching.
func (m *matcher) sync(rows []int32) int {
	for i, s := range rows {
		if !m.inited[i] || m.sq[i] != s {
			m.inited[i] = true
			m.sq[i] = s
			m.unassign(i)
		}
	}
	for i := 0; i < m.n; i++ {
		if m.col[i] < 0 {
			m.augment(i)
		}
	}
	return m.result()
}

func (m *matcher) result() int {
	var t int64
	for i := 0; i < m.n; i++ {
		t += m.cost(i, int(m.col[i]))
	}
	if t >= infCost {
		return infCost
	}
	return int(t)
}

// tryRow returns the matching cost with box i on cost row to, then restores
// the current matching.
func (m *matcher) tryRow(i int, to int32) int {
	copy(m.su, m.u)
	copy(m.sv, m.v)
	copy(m.scol, m.col)
	copy(m.srow, m.row)
	from := m.sq[i]
	m.sq[i] = to
	m.unassign(i)
	m.augment(i)
	r := m.result()
	m.sq[i] = from
	copy(m.u, m.su)
	copy(m.v, m.sv)
	copy(m.col, m.scol)
	copy(m.row, m.srow)
	return r
}

// augment assigns the free row cur by one shortest augmenting path and
// updates the potentials so that reduced costs stay non-negative and zero on
// matched pairs.
func (m *matcher) augment(cur int) {
	g := m.g
	for j := 0; j < g; j++ {
		m.spc[j] = 1 << 62
		m.sc[j] = false
		m.remaining[j] = int32(g - 1 - j)
	}
	clear(m.sr)
	numRemaining := g
	var minVal int64
	i := cur
	sink := -1
	for sink < 0 {
		m.sr[i] = true
		index := -1
		lowest := int64(1 << 62)
		ui := m.u[i]
		base := int(m.sq[i]) * g
		for it := 0; it < numRemaining; it++ {
			j := int(m.remaining[it])
			c := int64(m.costs[base+j])
			if c == Inf {
				c = infCost
			}
			r := minVal + c - ui - m.v[j]
			if r < m.spc[j] {
				m.path[j] = int32(i)
				m.spc[j] = r
			}
			if m.spc[j] < lowest || (m.spc[j] == lowest && m.row[j] < 0) {
				lowest = m.spc[j]
				index = it
			}
		}
		minVal = lowest
		j := int(m.remaining[index])
		if m.row[j] < 0 {
			sink = j
		} else {
			i = int(m.row[j])
		}
		m.sc[j] = true
		numRemaining--
		m.remaining[index] = m.remaining[numRemaining]
	}
	m.u[cur] += minVal
	for r := 0; r < m.n; r++ {
		if m.sr[r] && r != cur {
			m.u[r] += minVal - m.spc[m.col[r]]
		}
	}
	for j := 0; j < g; j++ {
		if m.sc[j] {
			m.v[j] -= minVal - m.spc[j]
		}
	}
	j := sink
	for {
		r := int(m.path[j])
		m.row[j] = int32(r)
		next := m.col[r]
		m.col[r] = int32(j)
		if r == cur {
			break
		}
		j = int(next)
	}
}
