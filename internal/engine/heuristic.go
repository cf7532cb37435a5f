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
	if h.Rule > RuleMatching {
		return fmt.Errorf("engine: heuristic %q has unknown rule %d", h.Name, h.Rule)
	}
	return nil
}

// infCost is the bound the evaluators return for a deadlock.
const infCost = 1 << 30

// evaluator computes a heuristic for the boxes of the search position. Box i
// of the evaluator is box i of the position. All scratch space is allocated
// once in newEvaluator.
type evaluator struct {
	rule  Rule
	costs []uint16
	goals int
	n     int

	// sum-min
	minCost []int32 // per square, min over goals; infCost when none

	// matching state, by box (row) and goal (column).
	m *matcher

	// greedy scratch
	pairs     []uint64
	rowDone   []bool
	colDone   []bool
	boxSquare []uint16
}

func newEvaluator(b *Board, h *Heuristic, boxes int) *evaluator {
	g := len(b.Goals)
	e := &evaluator{rule: h.Rule, costs: h.Costs, goals: g, n: boxes}
	if len(e.costs) == b.Squares*g {
		e.costs = append(slices.Clip(e.costs), make([]uint16, g)...)
		for j := 0; j < g; j++ {
			e.costs[b.Squares*g+j] = Inf
		}
	}
	e.minCost = make([]int32, b.Squares+1)
	for sq := range e.minCost {
		m := int32(infCost)
		for j := 0; j < g; j++ {
			if c := e.costs[sq*g+j]; c != Inf && int32(c) < m {
				m = int32(c)
			}
		}
		e.minCost[sq] = m
	}
	switch h.Rule {
	case RuleMatching:
		e.m = newMatcher(boxes, g, e.costs)
	case RuleGreedy:
		e.pairs = make([]uint64, 0, boxes*g)
		e.rowDone = make([]bool, boxes)
		e.colDone = make([]bool, g)
	}
	e.boxSquare = make([]uint16, boxes)
	return e
}

// full evaluates the bound for boxes from scratch, making it the evaluator's
// current position. It returns infCost or more for a deadlock.
func (e *evaluator) full(boxes []uint16) int {
	copy(e.boxSquare, boxes)
	switch e.rule {
	case RuleMatching:
		return e.m.sync(boxes)
	case RuleGreedy:
		return e.greedy(boxes)
	default:
		s := 0
		for _, b := range boxes {
			s += int(e.minCost[b])
		}
		return s
	}
}

// sync makes boxes the evaluator's current position and returns its bound;
// cheap when few boxes differ from the previous current position.
func (e *evaluator) sync(boxes []uint16) int { return e.full(boxes) }

// child returns the bound of the current position with box i moved to
// square to, given the current position's bound cur, without changing the
// current position.
func (e *evaluator) child(cur int, boxes []uint16, i int, to uint16) int {
	switch e.rule {
	case RuleMatching:
		return e.m.tryRow(i, to)
	case RuleGreedy:
		from := boxes[i]
		boxes[i] = to
		v := e.greedy(boxes)
		boxes[i] = from
		return v
	default:
		if cur >= infCost {
			return cur
		}
		v := cur - int(e.minCost[boxes[i]]) + int(e.minCost[to])
		return v
	}
}

func (e *evaluator) greedy(boxes []uint16) int {
	g := e.goals
	e.pairs = e.pairs[:0]
	for i, b := range boxes {
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
		if matched == len(boxes) {
			break
		}
	}
	if matched < len(boxes) {
		for i, b := range boxes {
			if !e.rowDone[i] {
				total += int(e.minCost[b])
			}
		}
	}
	return total
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
	sq     []uint16 // current square of each row
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
	m.sq = make([]uint16, n)
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

// sync moves the rows whose square changed and repairs the matching.
func (m *matcher) sync(boxes []uint16) int {
	for i, s := range boxes {
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

// tryRow returns the matching cost with row i moved to square to, then
// restores the current matching.
func (m *matcher) tryRow(i int, to uint16) int {
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
