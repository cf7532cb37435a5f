// Package fess is the built-in "fess" planner: a compact feature-space
// search after FESS (Shoham and Schaeffer, "The FESS Algorithm: A Feature
// Based Approach to Single-Agent Search", IEEE CoG 2020).
//
// Every position is projected onto a cell of a small feature space:
//
//   - packing: how many steps of the packing order (package packing) are
//     done, in order;
//   - connectivity: the number of regions the boxes cut the free squares
//     into;
//   - room connectivity: the number of boxes off goals standing in doors
//     (tunnel squares between rooms), each closing a passage;
//   - out of plan: the boxes standing where no later step of the packing
//     order can use them (oop.go); on a board too large for that, the
//     boxes on goals ahead of the order.
//
// Moves are macro moves that take one box any distance. Advisors look at
// the moves of a position and each proposes the one that improves its
// measure most: the first three features, and the hotspots (boxes in
// another's way, hotspot.go), which as in Festival have an advisor but no
// axis; the out-of-plan advisor, as Festival's, takes a box away from
// where it is out of plan.
// Two more advisors of Festival's propose moves no measure rewards yet
// (explore.go): the explorer a move that lets the player at new pushes,
// the opener, when nothing packs, one that clears the way to the next
// square of the packing order.
// Advised moves cost 0, every other move costs 1, and a position's weight is the
// sum along its path. The search cycles over the feature-space cells it
// has discovered, and in each cell expands the position of least weight,
// so no single feature's plateau can absorb the search. A transposition
// table keeps every position once. Besides the deadlock tests, positions
// whose goal areas can no longer be completed with the boxes on their
// goals standing still are dropped (board.AreaCheck).
//
// One simplification from the paper: a position's weight-0 (advised)
// children are queued when it is first expanded, and its weight-1
// children (stored then, held back) all at once when it is picked a second
// time, instead of one move per pick.
//
// A plan runs two such searches in turn (see tries): the first holds
// children back, the second does not, and each solves levels the other
// does not within the budget. Where the packing order leaves goals
// unordered, the second follows the base search's plan instead
// (packing.BaseOrder) and holds children back too.
package fess

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// Planner is the fess planner. The zero value is ready; each Plan is
// independent.
type Planner struct{}

// New returns the fess planner.
func New() sdk.Planner { return Planner{} }

// Plan solves req.Level within req.Budget, verifying any solution with
// host before returning it.
func (Planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	st, done, err := packing.Start(ctx, req, progress)
	if err != nil {
		return nil, fmt.Errorf("fess: %w", err)
	}
	if done != nil {
		return done, nil
	}
	b, run, plan := st.Board, st.Run, st.Plan
	limit := macro.StoreLimit(req, len(b.StartBoxes), nodeExtra)
	// The plan's shape leads the reason: a plan of mostly unordered steps
	// is the first thing to suspect when fess gives up.
	reasons := []string{plan.String()}
	// The goal areas' fill order (see dead) can cut every way on: a try
	// that runs out of positions after the fill order cut some runs again
	// without it: on some levels the fill order cuts every way at once,
	// and the search without it solves them quickly.
	fillOrder := true
	plans := []planned{{plan, newTables(b, plan), false}}
	if alt := baseOrder(req, run, b, plan); alt != nil {
		plans = append(plans, planned{alt, newTables(b, alt), true})
		reasons[0] += "; the second try's " + alt.String()
	}
	for k := 0; k < len(tries); k++ {
		t, p := tries[k], plans[min(k, len(plans)-1)]
		// The first try too: on a board of thousands of boxes the packing
		// order can take the whole budget, and a search's tables take a
		// while to build. A try that ran past the plan's end says why it
		// stopped as its leg's; the plan's reason is added then.
		if why := run.Why(); why != "" {
			if !strings.Contains(reasons[len(reasons)-1], why) {
				reasons = append(reasons, why)
			}
			break
		}
		end := run.Leg(t.share)
		s := newSearch(b, p.plan, p.tabs, limit, t.hold || p.hold)
		if !fillOrder {
			s.area = nil
		}
		s.try = fmt.Sprintf("try %d of %d: ", k+1, len(tries))
		id, reason := s.run(run)
		end()
		if id >= 0 {
			res, err := macro.Finish(ctx, s.gen, s.store, id, host)
			if err != nil {
				return nil, fmt.Errorf("fess: %w", err)
			}
			return res, nil
		}
		reasons = append(reasons, fmt.Sprintf("%s%s (%d feature cells)", s.try, reason, len(s.cells)))
		if reason == exhausted {
			if !fillOrder || s.areaCuts == 0 {
				break // every try searches the same positions
			}
			fillOrder = false
			reasons[len(reasons)-1] += ", again without the fill order"
			k-- // the same try, with what is left of its share
		}
		// The spent try's store may be as large as the memory budget:
		// free it before the next try fills another.
		runtime.GC()
	}
	return macro.GaveUp(run, strings.Join(reasons, "; ")), nil
}

// tries are the searches a plan runs in turn, each with its share of the
// budget the ones before left. They differ in whether first picks hold
// children back (see expand), which changes what the advisors see: a
// held-back child is known, so no other position's advisor proposes it.
// Neither wins everywhere: each solves levels the other misses and is
// much faster than the other on others, so the plan runs both in turn,
// the first with half the budget.
var tries = [...]struct {
	hold  bool
	share float64
}{{hold: true, share: 0.5}, {hold: false, share: 1}}

// exhausted is run's reason when no position is left to expand.
const exhausted = "search space exhausted"

// nodeExtra is the memory a node takes beyond the store: its weight,
// phase, features, children's range and deadlock mark, and an entry in
// each of its cell's two open lists per phase.
const nodeExtra = 4 + 1 + 20 + 8 + 1 + 4*16

// features is a position's projection onto the feature space, and the
// distance that orders positions of equal weight within a cell.
type features struct {
	packed, regions, doors, outOfPlan int32
	// hotspots is advised on but is no axis of the space (see hotspot.go).
	hotspots int32
	// dist is the sum over the boxes of the push distance to the nearest
	// goal. It is no feature: it breaks ties within a cell, where the
	// paper leaves the order open, so that among equally advised
	// positions the one nearer the goals goes first.
	dist int32
}

// key packs the features into a cell key.
func (f features) key() uint64 {
	return uint64(min(f.packed, 0xFFFF)) | uint64(min(f.regions, 0xFFFF))<<16 |
		uint64(min(f.doors, 0xFFFF))<<32 | uint64(min(f.outOfPlan, 0xFFFF))<<48
}

// Per node phases: not expanded yet, children held back (see expand),
// done, and held back itself: stored but not queued.
const (
	phaseAdvised uint8 = iota
	phaseRest
	phaseDone
	phaseDeferred
)

// cell is one feature-space cell: the positions projected onto it that
// still have children to add, least weight first, in two orders for ties
// that the cell's turns alternate between: newest first, which dives, and
// nearest the goals first, which focuses. Neither wins on every level;
// alternating costs at most about twice the better one. An entry is stale once its
// position has moved on to the next phase through the other order.
type cell struct {
	open [2]macro.Heap
	turn uint8
}

// search is one feature-space search.
type search struct {
	b     *board.Board
	plan  *packing.Plan
	gen   *macro.Gen
	store *macro.Store
	pos   *macro.Pos
	door  []bool           // tunnel squares between rooms
	area  *board.AreaCheck // goal areas' fill order (see dead); nil for none
	// areaCuts counts the positions only the fill order found dead.
	areaCuts int
	// goalRank[sq] is the step of the plan whose square sq is, or -1.
	goalRank []int32
	// nearest[sq] is the push distance from sq to the nearest goal.
	nearest []uint16
	// Shared by a plan's tries (see tables).
	hot  *hotspots
	ways *ways
	oop  *oopZones // nil on a board too large for the zones

	// Per node.
	weight []uint32
	phase  []uint8
	feat   []features
	// kids..kidsEnd are the nodes a first pick stored.
	kids, kidsEnd []int32
	// alive marks the nodes that passed the deadlock tests already.
	alive []bool
	// holdLimit is the store size past which first picks hold no children
	// back: held-back children fill the store faster than picks need.
	holdLimit int
	// try names the plan's try in progress messages.
	try string

	cells  []cell
	cellOf map[uint64]int32
	seq    uint32

	// Scratch per expansion: the children's features, whether each
	// child is stored already, and whether it opens a push (opensPush);
	// the squares the player reaches in the position expanded.
	childFeat []features
	known     []bool
	opens     []bool
	reach     []bool
	// opensPush's flood: square q is in it when seen[q] == stamp.
	seen  []uint32
	stamp uint32
	stack []uint16
}

// planned is a plan with its tables, and whether its try holds children
// back whatever the try's own setting.
type planned struct {
	plan *packing.Plan
	tabs *tables
	hold bool
}

// baseOrder returns the base search's plan (packing.BaseOrder) where plan,
// the reverse search's, left goals unordered and it orders more, or nil.
// The second try follows it, holding children back as the first does:
// not held back, it solved few of the levels it helps, and given to the
// first try it cost levels the reverse search's plan solves there
// (docs/benchmarks.md).
func baseOrder(req *sdk.PlanRequest, run *macro.Run, b *board.Board, plan *packing.Plan) *packing.Plan {
	if plan.Unordered == 0 {
		return nil
	}
	ctx, cancel := run.Context()
	defer cancel()
	alt := packing.BaseOrder(ctx, b, int64(min(req.Budget.MemoryBytes, 1<<62)))
	if alt == nil || alt.Unordered >= plan.Unordered {
		return nil
	}
	return alt
}

// tables are what a plan's tries share: built once from the board and the
// plan.
type tables struct {
	hot  *hotspots
	ways *ways
	oop  *oopZones
}

// newTables returns the tables of b and plan.
func newTables(b *board.Board, plan *packing.Plan) *tables {
	return &tables{hot: newHotspots(b), ways: newWays(b, plan), oop: newOOPZones(b, plan)}
}

// newSearch returns a search whose store holds at most limit nodes, and
// whose first picks hold children back (until the store is half full) when
// hold is set.
func newSearch(b *board.Board, plan *packing.Plan, t *tables, limit int, hold bool) *search {
	s := &search{b: b, plan: plan, hot: t.hot, ways: t.ways, oop: t.oop, reach: make([]bool, b.Squares+1), seen: make([]uint32, b.Squares+1), gen: macro.NewGen(b), store: macro.NewStore(len(b.StartBoxes), limit), pos: macro.NewPos(b),
		door: doors(b), area: board.NewAreaCheck(b), goalRank: make([]int32, b.Squares+1), cellOf: map[uint64]int32{}}
	if hold {
		s.holdLimit = limit / 2
	}
	for i := range s.goalRank {
		s.goalRank[i] = -1
	}
	s.nearest = b.NearestGoal()
	for k, st := range plan.Steps {
		if b.GoalIndex[st.To] >= 0 {
			s.goalRank[st.To] = int32(k)
		}
	}
	return s
}

// doors marks the tunnel squares: floor with walls on both sides across
// and floor on both sides along. A box there closes the passage.
func doors(b *board.Board) []bool {
	w := b.Wall()
	d := make([]bool, b.Squares+1)
	for s := range b.Squares {
		n := b.Nbr[s*4 : s*4+4]
		horiz := n[0] != w && n[2] != w && n[1] == w && n[3] == w
		vert := n[1] != w && n[3] != w && n[0] == w && n[2] == w
		d[s] = horiz || vert
	}
	return d
}

// measure computes the features of s.pos, whose free squares fall into
// regions regions.
func (s *search) measure(regions int) features {
	b := s.b
	f := features{packed: int32(s.plan.Packed(s.pos.BoxAt)), regions: int32(regions), hotspots: s.hot.count(s.pos.Boxes)}
	for _, x := range s.pos.Boxes {
		onGoal := b.GoalIndex[x] >= 0
		if s.door[x] && !onGoal {
			f.doors++
		}
		if s.oop == nil && onGoal && s.goalRank[x] >= f.packed {
			f.outOfPlan++
		}
		f.dist += int32(s.nearest[x])
	}
	if s.oop != nil {
		f.outOfPlan = s.oop.count(f.packed, s.pos.Boxes)
	}
	return f
}

// push queues node id in its cell with priority weight w.
func (s *search) push(id int32, w uint32) {
	key := s.feat[id].key()
	c, ok := s.cellOf[key]
	if !ok {
		c = int32(len(s.cells))
		s.cells = append(s.cells, cell{})
		s.cellOf[key] = c
	}
	s.seq++
	ph := uint64(s.phase[id])
	s.cells[c].open[0].Push(macro.Item{Pri: uint64(w)<<40 | uint64(^s.seq&0xFFFFFFFF)<<2 | ph, ID: id})
	s.cells[c].open[1].Push(macro.Item{Pri: uint64(w)<<40 | uint64(min(s.feat[id].dist, 0xFFFF))<<24 | uint64(^s.seq&0x3FFFFF)<<2 | ph, ID: id})
}

// add stores the position s.pos reached from parent by m with weight w,
// and queues it. It returns the node, -1 when the position is known, or
// -2 when the store is full.
func (s *search) add(parent int32, m *macro.Move, f features, w uint32, phase uint8) int32 {
	id := s.store.Add(parent, m, m.Hash, s.pos.Boxes, m.Norm)
	if id < 0 {
		if s.store.Full() {
			return -2
		}
		return -1
	}
	s.node(id, f, w, phase)
	return id
}

// node gives the stored position id its per-node entries, and queues it
// unless phase holds it back or marks it done.
func (s *search) node(id int32, f features, w uint32, phase uint8) {
	s.weight = append(s.weight, w)
	s.phase = append(s.phase, phase)
	s.feat = append(s.feat, f)
	s.kids = append(s.kids, 0)
	s.kidsEnd = append(s.kidsEnd, 0)
	s.alive = append(s.alive, false)
	if phase == phaseAdvised {
		s.push(id, w)
	}
}

// start stores the level's start position and queues it.
func (s *search) start() int32 {
	b := s.b
	s.pos.Set(b.StartBoxes, b.StartPlayer)
	norm := s.gen.Flood(s.pos, b.StartPlayer)
	s.pos.Player = norm
	root := s.store.Add(-1, nil, macro.Hash(b, s.pos.Boxes, norm), s.pos.Boxes, norm)
	s.node(root, s.measure(s.gen.Regions(s.pos)), 0, phaseAdvised)
	return root
}

// run cycles over the cells until a solution (its node) or a reason to
// stop.
func (s *search) run(run *macro.Run) (int32, string) {
	root := s.start()
	run.Best = macro.OnGoals(s.b, s.store.Boxes(root))
	if run.Best == len(s.b.Goals) {
		return root, ""
	}
	for {
		// One round: each cell in turn expands its lightest position.
		empty := true
		for c := 0; c < len(s.cells); c++ {
			id := s.pop(&s.cells[c])
			if id < 0 {
				continue
			}
			empty = false
			if stop, reason := run.Tick(); stop {
				return -1, reason
			}
			if sol, stop := s.expand(run, id); sol >= 0 || stop != "" {
				return sol, stop
			}
		}
		if empty {
			return -1, exhausted
		}
		run.Message = fmt.Sprintf("%s%d feature cells, %d positions", s.try, len(s.cells), s.store.Len())
	}
}

// pop takes the next position to expand from c, or -1 when c has none.
func (s *search) pop(c *cell) int32 {
	for range 2 {
		h := &c.open[c.turn]
		c.turn ^= 1
		for h.Len() > 0 {
			it := h.Pop()
			if uint8(it.Pri&3) == s.phase[it.ID] {
				return it.ID
			}
		}
	}
	return -1
}

// expand adds node id's children for its current phase. It returns a
// solved node, or a reason to stop, or (-1, "").
//
// The first pick generates the moves once and stores every new child:
// the advised ones queued at the position's weight, the others at one
// more but held back (phaseDeferred) until the second pick queues them,
// which needs no generation and no deadlock test: generating the moves
// again at the second pick is a large part of the work. A held-back position
// counts as known: another position's advisors do not propose it. Held-back
// children fill the store several times faster than picks need, so once
// it is half full first picks hold nothing back and second picks generate
// the moves again, trading time for the memory that lets the search go on.
func (s *search) expand(run *macro.Run, id int32) (int32, string) {
	b := s.b
	regen := s.phase[id] == phaseRest && s.kidsEnd[id] < 0
	if s.phase[id] == phaseRest && !regen {
		for k := s.kids[id]; k < s.kidsEnd[id]; k++ {
			if s.phase[k] == phaseDeferred {
				s.phase[k] = phaseAdvised
				s.push(k, s.weight[k])
			}
		}
		s.phase[id] = phaseDone
		return -1, ""
	}
	s.store.Load(id, s.pos)
	if !regen && !s.alive[id] && s.dead() {
		s.phase[id] = phaseDone
		return -1, ""
	}
	w := s.weight[id]
	parent := s.feat[id]
	player := s.pos.Player
	ong := macro.OnGoals(b, s.pos.Boxes)
	run.Best = max(run.Best, ong)
	moves := s.gen.Generate(s.pos, nil)
	// The children's features, for the children not stored yet: a known
	// position is neither advised nor added again.
	s.childFeat = s.childFeat[:0]
	s.known = s.known[:0]
	s.opens = s.opens[:0]
	if !regen {
		s.markReach()
	}
	for i := range moves {
		if i%256 == 255 && run.Expired() {
			return -1, "" // the next Tick says why
		}
		m := &moves[i]
		known := s.store.Find(m.Hash) >= 0
		s.known = append(s.known, known)
		var f features
		opens := false
		if !known {
			s.pos.Apply(m)
			f = s.measure(int(m.Regions))
			// Only the advisors use opens, and a regenerating pick asks
			// none.
			opens = !regen && f.packed >= parent.packed && s.ways.reversible(m.From, m.To) && s.opensPush(m)
			s.pos.Undo(m, player)
		}
		s.childFeat = append(s.childFeat, f)
		s.opens = append(s.opens, opens)
	}
	first := int32(s.store.Len())
	advised := noAdvice()
	if !regen {
		var stop string
		if advised, stop = s.adviseAlive(moves, parent, player, id); stop != "" {
			return -1, stop
		}
	}
	hold := !regen && s.store.Len() < s.holdLimit
	held, rest := false, false
	for i := range moves {
		m := &moves[i]
		if s.known[i] {
			continue
		}
		s.pos.Apply(m)
		var child int32
		if slices.Contains(advised[:], i) {
			child = s.add(id, m, s.childFeat[i], w, phaseAdvised)
			if child >= 0 {
				s.alive[child] = true
			}
		} else if regen {
			child = s.add(id, m, s.childFeat[i], w+1, phaseAdvised)
		} else if hold {
			child = s.add(id, m, s.childFeat[i], w+1, phaseDeferred)
			held = held || child >= 0
		} else {
			rest = true
			s.pos.Undo(m, player)
			continue
		}
		cg := ong
		if b.GoalIndex[m.From] >= 0 {
			cg--
		}
		if b.GoalIndex[m.To] >= 0 {
			cg++
		}
		s.pos.Undo(m, player)
		// child is -1 when two moves lead to one position: the first
		// added it.
		if child == -2 {
			return -1, "memory budget spent"
		}
		if child >= 0 && cg == len(b.Goals) {
			return child, ""
		}
	}
	// The children a first pick stores get consecutive nodes.
	s.kids[id], s.kidsEnd[id] = first, int32(s.store.Len())
	switch {
	case rest && !regen:
		// Past holdLimit: the second pick generates the moves again.
		s.kidsEnd[id] = -1
		s.phase[id] = phaseRest
		s.push(id, w+1)
	case held:
		s.phase[id] = phaseRest
		s.push(id, w+1)
	default:
		// No child held back: no second pick.
		s.phase[id] = phaseDone
	}
	return -1, ""
}

// dead runs the deadlock tests on s.pos: the matching, the goal areas'
// fill order, and the corral test. The fill order is a guide, not a proof
// (a box on a goal may have to move again), so it may cut a solution;
// fess never claims a level unsolvable. It is kept because it cuts the
// wrong fill orders of goal rooms that fess otherwise searches for its
// whole budget.
func (s *search) dead() bool {
	if !s.gen.Matchable(s.pos) {
		return true
	}
	if s.area != nil && s.area.Dead(s.pos.Boxes) {
		s.areaCuts++
		return true
	}
	return s.gen.CorralDeadlock(s.pos)
}

// The advisors, in the order of advise's answer: one per feature, the
// hotspots', the explorer and the opener (explore.go); advisors counts
// them.
const (
	advPacked = iota
	advRegions
	advDoors
	advOutOfPlan
	advHotspots
	advExplorer
	advOpener
	advisors
)

// noAdvice returns advise's answer with no advisor proposing a move.
func noAdvice() (a [advisors]int) {
	for i := range a {
		a[i] = -1
	}
	return a
}

// advise returns the move each advisor proposes among the children not
// known, or -1: for the features and the hotspots, the one that improves
// its measure most (out of plan: see clearOOP); then the explorer's and
// the opener's.
func (s *search) advise(moves []macro.Move, parent features) [advisors]int {
	advised := noAdvice()
	// The advisors of a measure come first, up to the explorer.
	var best [advExplorer]int32
	for i, f := range s.childFeat {
		if s.known[i] {
			continue
		}
		gains := [...]int32{
			advPacked:    f.packed - parent.packed,
			advRegions:   parent.regions - f.regions,
			advDoors:     parent.doors - f.doors,
			advOutOfPlan: parent.outOfPlan - f.outOfPlan,
			advHotspots:  parent.hotspots - f.hotspots,
		}
		for a, g := range gains {
			if g > 0 && g > best[a] {
				best[a], advised[a] = g, i
			}
		}
	}
	// With zones, the out-of-plan advisor is Festival's (oop.go), not the
	// measure's gain.
	if s.oop != nil {
		advised[advOutOfPlan] = s.clearOOP(moves, parent)
	}
	advised[advExplorer] = s.explore()
	advised[advOpener] = s.open(moves, parent)
	return advised
}

// adviseAlive is advise with the advised children tested for deadlocks
// first: a proposal that leads to a deadlock is stored as done, so no
// position proposes it again, and the advisor proposes again. A third of
// the positions picked on some levels are corral deadlocks a macro move
// has just sealed; an advisor that proposed one wasted its advice. The
// test costs nothing extra: an advised child is picked soon and would be
// tested then (alive spares it that).
func (s *search) adviseAlive(moves []macro.Move, parent features, player uint16, id int32) ([advisors]int, string) {
	for {
		advised := s.advise(moves, parent)
		dead := false
		for a, i := range advised {
			if i < 0 || s.known[i] || slices.Contains(advised[:a], i) {
				continue
			}
			m := &moves[i]
			s.pos.Apply(m)
			if s.dead() {
				dead = true
				s.known[i] = true
				if s.add(id, m, s.childFeat[i], 0, phaseDone) == -2 {
					s.pos.Undo(m, player)
					return advised, "memory budget spent"
				}
			}
			s.pos.Undo(m, player)
		}
		if !dead {
			return advised, ""
		}
	}
}
