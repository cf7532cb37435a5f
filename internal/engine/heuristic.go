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
	// Penalties add to the combined costs (penalty.go).
	Penalties []Penalty
	// Estimator, when set, gives the bound in batches instead of the
	// tables, which are then empty (batch.go).
	Estimator Estimator
}

// check validates h against the board.
func (h *Heuristic) check(b *Board) error {
	if h == nil {
		return fmt.Errorf("engine: no heuristic")
	}
	if h.Estimator != nil {
		return nil // no tables: see checkBatch
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
	return checkPenalties(h.Name, b, h.Penalties)
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

	// monotone: a push lowers no box-goal cost by more than one (see
	// checkMonotone), so a child's matching bound is at least the
	// parent's minus one.
	monotone bool
	// lazyAbove: with more boxes than this, children are not repaired.
	lazyAbove int

	// greedy scratch
	pairs   []uint64
	rowDone []bool
	colDone []bool
	rows    []int32 // current row of each box

	pen *penalties // nil without penalty patterns
}

func newEvaluator(b *Board, h *Heuristic, boxes int) *evaluator {
	g := len(b.Goals)
	e := &evaluator{b: b, rule: h.Rule, costs: h.Costs, goals: g, n: boxes, lazyAbove: lazyRepairBoxes}
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
	e.monotone = e.checkMonotone()
	e.pen = newPenalties(b, h.Penalties, boxes)
	return e
}

// checkMonotone reports whether no push can lower any box-goal cost by more
// than one: for every push of a box from sq (the player behind it) to the
// next square, each goal's cost from the child's row is at least the
// parent row's minus one (and unreachable stays unreachable). The push
// distances have this property; a table from elsewhere may not. With it,
// a push lowers the matching cost by at most one, since the child's best
// matching repriced with the parent's row costs at most one more.
func (e *evaluator) checkMonotone() bool {
	b, g := e.b, e.goals
	n := uint16(b.Squares)
	for sq := uint16(0); sq < n; sq++ {
		for d := 0; d < 4; d++ {
			to, side := b.Nbr[int(sq)*4+d], b.Nbr[int(sq)*4+d^2]
			if to >= n || side >= n || b.Dead[to] {
				continue
			}
			pr := e.costs[int(e.row(sq, side))*g:][:g]
			cr := e.costs[int(e.row(to, sq))*g:][:g]
			for j := range g {
				cp, cc := pr[j], cr[j]
				if cc == Inf {
					continue
				}
				if cp == Inf || int(cp) > int(cc)+1 {
					return false
				}
			}
		}
	}
	return true
}

// row returns the cost row of a box on sq with the player on square player.
func (e *evaluator) row(sq, player uint16) int32 {
	if !e.regions {
		return int32(sq)
	}
	return int32(sq)*Regions + int32(e.b.Region(sq, player))
}

// sync makes boxes, with the player on square player, the evaluator's
// current position and returns its bound (infCost or more for a deadlock):
// the combined costs plus the penalties. Cheap when few boxes moved since
// the previous current position.
func (e *evaluator) sync(boxes []uint16, player uint16) int {
	for i, b := range boxes {
		e.rows[i] = e.row(b, player)
	}
	var h int
	switch e.rule {
	case RuleMatching:
		h = e.m.sync(e.rows)
	case RuleGreedy:
		h = e.greedy(e.rows)
	default:
		for _, r := range e.rows {
			h += int(e.minCost[r])
		}
		h = min(h, infCost)
	}
	if e.pen != nil && h < infCost {
		h = min(h+e.pen.sync(boxes), infCost)
	}
	return h
}

// lazyRepairBoxes is the number of boxes from which the matching rule no
// longer repairs the matching for every generated child whose bound the
// dual potentials leave open: above it a child is queued with the dual
// lower bound and its exact bound is computed when it is popped (see
// searcher.step). Below it one repair, O(boxes^2) at worst, is cheaper than
// the extra pop and rebuild a deferred child costs.
const lazyRepairBoxes = 64

// child returns the bound of the current position with box i pushed to
// square to by pushes pushes in a line (one, or a tunnel macro's), the
// player then on square from, given the current position's bound cur,
// without changing the current position. The other boxes keep their rows:
// the player walks to the box and behind it along its line over free
// squares, none of them another box's, so it stays in the same region
// around every other box.
//
// exact is false when the bound returned is only a lower bound on the
// child's true bound (never more than it). That happens for the matching
// rule on boards with more than lazyRepairBoxes boxes (or always when lazy
// is set), where the child is costed by the dual potentials instead of
// a repair: the search then queues the child with the lower bound and
// evaluates it exactly when it is popped, which keeps A* admissible.
func (e *evaluator) child(cur int, i int, to, from uint16, pushes int, lazy bool) (h int, exact bool) {
	pen := 0
	if e.pen != nil && cur < infCost {
		// cur is the last sync's, whose penalty e.pen still holds: the
		// rules below see the combined costs alone.
		cur -= e.pen.sum
		pen = e.pen.child(i, to)
	}
	nr := e.row(to, from)
	exact = true
	switch e.rule {
	case RuleMatching:
		if cur >= infCost {
			h = cur
			break
		}
		lb, tight := e.m.dualRow(cur, i, nr)
		switch {
		case tight || lb >= infCost:
			h = lb
		case lazy || e.n > e.lazyAbove:
			if e.monotone && lb < cur-pushes {
				lb = cur - pushes
			}
			h, exact = lb, false
		default:
			h = e.m.tryRow(i, nr)
		}
	case RuleGreedy:
		old := e.rows[i]
		e.rows[i] = nr
		h = e.greedy(e.rows)
		e.rows[i] = old
	default:
		h = cur
		if cur < infCost {
			h = min(cur-int(e.minCost[e.rows[i]])+int(e.minCost[nr]), infCost)
		}
	}
	if pen > 0 && h < infCost {
		h = min(h+pen, infCost)
	}
	return h, exact
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

	// done, when closed, makes sync give up between rows, returning
	// infCost; the search then ends (searcher.overdue).
	done <-chan struct{}
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

// sync moves the boxes whose cost row changed and repairs the matching. A
// box whose goal stays its cheapest in reduced cost keeps it, with its
// potential reset (see retighten); only the others are unassigned and
// augmented again. Rebuilding a far position after a jump in the search,
// or one where the player changed region around many boxes, then costs
// O(goals) per moved box instead of an augmenting path each.
func (m *matcher) sync(rows []int32) int {
	for i, s := range rows {
		switch {
		case !m.inited[i]:
			m.inited[i] = true
			m.sq[i] = s
			m.unassign(i)
		case m.sq[i] != s:
			m.sq[i] = s
			if m.col[i] < 0 || !m.retighten(i) {
				m.unassign(i)
			}
		}
	}
	for i := 0; i < m.n; i++ {
		if m.col[i] < 0 {
			select {
			case <-m.done:
				return infCost
			default:
			}
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

// dualRow returns a lower bound on the matching cost with box i on cost row
// to, given the current cost cur (a complete matching, just synced), in
// O(goals) and without changing anything. The current potentials are a
// feasible dual solution (c(k,j) - u[k] - v[j] >= 0 for every pair, zero on
// matched pairs, so cur = sum u + sum v: boxes and goals are equally many).
// Moving box i changes row i only; with u'[i] = min over j of
// (c'(i,j) - v[j]) the potentials stay feasible, so by weak duality every
// perfect matching of the child costs at least
// cur - u[i] + u'[i]. When the minimum is reached at box i's own goal, the
// old matching with box i's pair repriced is tight everywhere and hence
// optimal: the bound is exact (tight is true).
func (m *matcher) dualRow(cur int, i int, to int32) (lb int, tight bool) {
	g := m.g
	row := m.costs[int(to)*g : int(to)*g+g]
	best := int64(1 << 62)
	bestJ := -1
	own := int(m.col[i])
	for j, c := range row {
		cc := int64(c)
		if c == Inf {
			cc = infCost
		}
		r := cc - m.v[j]
		if r < best || (r == best && j == own) {
			best, bestJ = r, j
		}
	}
	v := int64(cur) - m.u[i] + best
	// A matching of finite pairs costs at most n*(Inf-1); one with an
	// unreachable pair costs infCost or more. So a bound above the first
	// means the child has no finite matching: a bipartite deadlock.
	if v >= infCost || v > int64(m.n)*(Inf-1) {
		return infCost, true
	}
	if v < 0 {
		v = 0
	}
	return int(v), bestJ == own
}

// retighten restores the dual invariants after row i's costs changed with
// box i still assigned: u[i] becomes min over j of c(i,j) - v[j], which
// keeps every reduced cost of row i non-negative, and the assignment is
// kept when that minimum is reached at its own column (reduced cost zero).
// Other rows are untouched, so the matching stays optimal. It reports false,
// changing nothing, when another column is strictly cheaper.
func (m *matcher) retighten(i int) bool {
	g := m.g
	row := m.costs[int(m.sq[i])*g : int(m.sq[i])*g+g]
	own := int(m.col[i])
	best := int64(1 << 62)
	bestJ := -1
	for j, c := range row {
		cc := int64(c)
		if c == Inf {
			cc = infCost
		}
		r := cc - m.v[j]
		if r < best || (r == best && j == own) {
			best, bestJ = r, j
		}
	}
	if bestJ != own {
		return false
	}
	m.u[i] = best
	return true
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
