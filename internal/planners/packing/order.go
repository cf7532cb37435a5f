package packing

import (
	"context"
	"fmt"
	"slices"

	"github.com/sokod/sokod/board"
)

// Step is one step of a packing plan, read forwards: a box arrives on
// square To. From is the square it comes from when it was parked there by
// an earlier step; -1 means any box not yet placed by the plan.
type Step struct {
	From int32
	To   uint16
}

// Plan is a packing order: the steps in the order the forward search
// should complete them, and what each prefix of completed steps fixes.
type Plan struct {
	// Steps are the steps in order. The first Unordered steps fill goals
	// the reverse search could not empty; their order is arbitrary (the
	// board's), yet Advance holds the search to it: counting them in any
	// order widens the search's progress measure until it no longer leads
	// anywhere, and solved no level this order misses.
	Steps     []Step
	Unordered int
	// Parkings counts the steps that park a box on a square that is not
	// its goal.
	Parkings int
	// Locked[k] marks the squares whose boxes stay put once the first k
	// steps are done: the squares the steps have filled and no step up to
	// k empties again.
	Locked [][]bool
	// Until[k] is the first later step that moves step k's box on (its
	// From is step k's To), or -1: once that step is done, step k needs
	// its box no more (see Packed).
	Until []int32
	// Dist[k][sq] is the push distance of a lone box from sq to step k's
	// square, ignoring where the player can walk, or board.Inf.
	Dist [][]uint16
}

// String sums the plan up for progress messages and reasons: how many
// steps, how many park a box, and how many are unordered. Many unordered
// steps mean the packing feature can barely tell progress.
func (p *Plan) String() string {
	return fmt.Sprintf("packing order of %d steps, %d parked, %d unordered", len(p.Steps), p.Parkings, p.Unordered)
}

// Advance returns how many steps are done in the position whose boxes
// stand where boxAt says (boxAt[sq] != -1 for a box), given that the first
// k are.
func (p *Plan) Advance(k int, boxAt []int16) int {
	for k < len(p.Steps) {
		s := p.Steps[k]
		if boxAt[s.To] == -1 || (s.From >= 0 && boxAt[s.From] != -1) {
			break
		}
		k++
	}
	return k
}

// MovedOn returns the step that moves step k's box on (Until[k]), or -1:
// also for a plan built without Until, whose boxes all stay.
func (p *Plan) MovedOn(k int) int {
	if p.Until == nil {
		return -1
	}
	return int(p.Until[k])
}

// outDepth is how far (in player steps) a square must lie from every goal
// to count as outside the goal area, where the reverse search may take a
// box off the board.
const outDepth = 3

// maxParkTries bounds the parking squares tried per box when the reverse
// search is stuck.
const maxParkTries = 12

// parkDepth is the most parkings chained to let one box leave: chains of
// two and three order many plans a single parking cannot, and no level
// was seen that a fourth would help.
const parkDepth = 3

// maxParkEvals bounds the pull searches (a box's parking squares, or its
// way out) that one stuck reverse search may spend on chains, so that a
// search that finds none gives up in a small part of a plan's time; its
// cost goes up with the boxes left times the squares.
const maxParkEvals = 50000

// parking is one parking of a chain: remaining[i] goes to square p.
type parking struct {
	i int
	p uint16
}

// park searches, depth first, for a chain of at most depth parkings after
// which some box other than the one last parked can leave, within *budget
// pull searches. It returns the chain, or nil. It leaves occ, region and
// remaining as it found them.
func (r *reverse) park(ctx context.Context, remaining []uint16, depth int, budget *int) []parking {
	for i := 0; i < len(remaining) && ctx.Err() == nil; i++ {
		q := remaining[i]
		*budget--
		for _, p := range r.parkingSquares(q) {
			if *budget <= 0 {
				return nil
			}
			r.occ[q], r.occ[p] = false, true
			remaining[i] = p
			r.playerRegion()
			var found []parking
			for j, x := range remaining {
				if j == i {
					continue
				}
				*budget--
				if r.outDistance(x) < int(board.Inf) {
					found = []parking{{i, p}}
					break
				}
			}
			if found == nil && depth > 1 {
				if rest := r.park(ctx, remaining, depth-1, budget); rest != nil {
					found = append([]parking{{i, p}}, rest...)
				}
			}
			remaining[i] = q
			r.occ[q], r.occ[p] = true, false
			r.playerRegion()
			if found != nil {
				return found
			}
		}
	}
	return nil
}

// Order computes a packing order by a reverse search from the solved
// position: it pulls boxes off the goals one at a time, each to a square
// outside the goal area, where the box leaves the board; a box may leave
// only where pulls can take it on to a square some box starts on, where
// a box to pack could come from (see outDistance). The box that
// leaves first is packed last. Among the boxes that can leave it takes the
// one with the shortest way out, the one nearest the entrance. When no box
// can leave, it parks boxes inside the area so that another box can then
// leave: one parking if one will do, else a chain of up to parkDepth; a
// parked box may be parked again. Stuck even so, it may also park boxes
// in sinks: dead ends outside the goal area that no box can come from (a
// corridor below a goal room, say), where a parked box stays until the
// area is empty. That is the last resort, so the orders found without it
// stay as they were. Boxes that cannot leave even so are packed first, in
// any order. The reverse search looks at boxes only, not
// the player's exact square, and is run once per plan; it allocates
// freely. Cancelling ctx cuts it short: Order returns nil, without the
// push distances of the steps, which are costly on a board of thousands of
// goals.
func Order(ctx context.Context, b *board.Board) *Plan {
	r := newReverse(b)
	occ := r.occ
	// A reverse step takes a box from square from to square to, or off
	// the board when to is -1.
	type revStep struct {
		from uint16
		to   int32
	}
	var steps []revStep
	remaining := slices.Clone(b.Goals)
	for _, g := range remaining {
		occ[g] = true
	}
	parkings := 0
	for len(remaining) > 0 && ctx.Err() == nil {
		r.playerRegion()
		best, bestDist := -1, int(board.Inf)
		for i, q := range remaining {
			if ctx.Err() != nil {
				break
			}
			if d := r.outDistance(q); d < bestDist {
				best, bestDist = i, d
			}
		}
		if best >= 0 {
			q := remaining[best]
			occ[q] = false
			steps = append(steps, revStep{from: q, to: -1})
			remaining = slices.Delete(remaining, best, best+1)
			continue
		}
		if parkings >= len(b.Goals) {
			break
		}
		// Chains of one parking first: a longer chain is sought only
		// when none of one will do.
		var seq []parking
		budget := maxParkEvals
		for d := 1; d <= parkDepth && seq == nil; d++ {
			seq = r.park(ctx, remaining, d, &budget)
		}
		if seq == nil {
			if r.sinks {
				break
			}
			r.sinks = true
			continue
		}
		for _, ps := range seq {
			steps = append(steps, revStep{from: remaining[ps.i], to: int32(ps.p)})
			occ[remaining[ps.i]], occ[ps.p] = false, true
			remaining[ps.i] = ps.p
			parkings++
		}
		r.playerRegion()
	}
	if ctx.Err() != nil {
		return nil
	}
	plan := &Plan{Parkings: parkings}
	// Forwards: first the boxes that never left, then the reverse steps
	// backwards, each reversed.
	for _, q := range remaining {
		plan.Steps = append(plan.Steps, Step{From: -1, To: q})
	}
	plan.Unordered = len(remaining)
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		plan.Steps = append(plan.Steps, Step{From: s.to, To: s.from})
	}
	return plan.finish(ctx, b, r)
}

// finish fills the plan's Locked, Until and Dist, or returns nil when ctx
// ends first.
func (p *Plan) finish(ctx context.Context, b *board.Board, r *reverse) *Plan {
	p.lock(b)
	p.Dist = make([][]uint16, len(p.Steps))
	byTarget := map[uint16][]uint16{}
	for k, s := range p.Steps {
		if ctx.Err() != nil {
			return nil
		}
		d, ok := byTarget[s.To]
		if !ok {
			d = r.pushDistances(s.To)
			byTarget[s.To] = d
		}
		p.Dist[k] = d
	}
	return p
}

// lock fills Locked and Until.
func (p *Plan) lock(b *board.Board) {
	p.Until = make([]int32, len(p.Steps))
	for k, s := range p.Steps {
		p.Until[k] = -1
		for j := k + 1; j < len(p.Steps); j++ {
			if p.Steps[j].From == int32(s.To) {
				p.Until[k] = int32(j)
				break
			}
		}
	}
	cur := make([]bool, b.Squares+1)
	p.Locked = make([][]bool, len(p.Steps)+1)
	for k := 0; k <= len(p.Steps); k++ {
		l := slices.Clone(cur)
		if k < len(p.Steps) && p.Steps[k].From >= 0 {
			l[p.Steps[k].From] = false
		}
		p.Locked[k] = l
		if k < len(p.Steps) {
			if f := p.Steps[k].From; f >= 0 {
				cur[f] = false
			}
			cur[p.Steps[k].To] = true
		}
	}
}

// reverse is the scratch space of the reverse search.
type reverse struct {
	b      *board.Board
	wall   uint16
	occ    []bool // a box on the square; the wall sentinel is occupied
	out    []bool // outside the goal area
	source []bool // a box's start square off the goals
	sink   []bool // outside the goal area, and no box can come from there
	// sinks lets boxes be parked in sinks (see Order).
	sinks  bool
	region []bool // the player's region
	mark   []uint32
	mgen   uint32
	stack  []uint16
	seen   []bool
	dist   []int32
	queue  []uint32
}

func newReverse(b *board.Board) *reverse {
	n := b.Squares + 1
	r := &reverse{b: b, wall: uint16(b.Squares), occ: make([]bool, n), out: make([]bool, n), region: make([]bool, n),
		mark: make([]uint32, n), seen: make([]bool, n*4), dist: make([]int32, n*4)}
	r.occ[b.Squares] = true
	// Player distance from the nearest goal, through floor.
	gd := make([]int, n)
	for i := range gd {
		gd[i] = -1
	}
	var q []uint16
	for _, g := range b.Goals {
		gd[g] = 0
		q = append(q, g)
	}
	for h := 0; h < len(q); h++ {
		s := q[h]
		for d := range 4 {
			t := b.Nbr[int(s)*4+d]
			if t != r.wall && gd[t] < 0 {
				gd[t] = gd[s] + 1
				q = append(q, t)
			}
		}
	}
	for s := range b.Squares {
		r.out[s] = b.GoalIndex[s] < 0 && gd[s] >= outDepth
	}
	r.source = make([]bool, n)
	for _, s := range b.StartBoxes {
		if b.GoalIndex[s] < 0 {
			r.out[s] = true
			r.source[s] = true
		}
	}
	r.sink = findSinks(b, r.out, r.source)
	return r
}

// findSinks marks the squares outside the goal area that no box can come
// from: a lone box pushed from a source reaches every square a box can
// come from. The box may not cross the goals, which are full in the
// reverse search, so a dead end beyond them is a sink.
func findSinks(b *board.Board, out, source []bool) []bool {
	goals := make([]bool, b.Squares+1)
	for _, g := range b.Goals {
		goals[g] = true
	}
	d := pushSteps(b, source, goals)
	sink := make([]bool, b.Squares+1)
	for s := range b.Squares {
		sink[s] = out[s] && d[s] < 0
	}
	return sink
}

// pushSteps returns the fewest pushes that take a lone box from a square
// marked in from to each square, the player needing only floor behind the
// box and the box crossing no square marked in avoid (nil: none), or -1
// where none reaches.
func pushSteps(b *board.Board, from, avoid []bool) []int32 {
	wall := b.Wall()
	d := make([]int32, b.Squares+1)
	for i := range d {
		d[i] = -1
	}
	var queue []uint16
	for s, ok := range from {
		if ok {
			d[s] = 0
			queue = append(queue, uint16(s))
		}
	}
	for h := 0; h < len(queue); h++ {
		s := queue[h]
		for dir := range 4 {
			t, p := b.Nbr[int(s)*4+dir], b.Nbr[int(s)*4+(dir^2)]
			if t != wall && p != wall && d[t] < 0 && (avoid == nil || !avoid[t]) {
				d[t] = d[s] + 1
				queue = append(queue, t)
			}
		}
	}
	return d
}

// flood marks the free squares reachable from s and returns how many.
func (r *reverse) flood(s uint16) int {
	r.mgen++
	r.mark[s] = r.mgen
	r.stack = append(r.stack[:0], s)
	n := 0
	for len(r.stack) > 0 {
		q := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		n++
		for d := range 4 {
			t := r.b.Nbr[int(q)*4+d]
			if !r.occ[t] && r.mark[t] != r.mgen {
				r.mark[t] = r.mgen
				r.stack = append(r.stack, t)
			}
		}
	}
	return n
}

// playerRegion sets region to the largest region of free squares: in the
// reverse search the player stands outside, where the boxes leave.
func (r *reverse) playerRegion() {
	clear(r.region)
	best := 0
	r.eachRegion(func(_ uint16, n int) {
		if n > best {
			best = n
			for t := range r.b.Squares {
				r.region[t] = r.mark[t] == r.mgen
			}
		}
	})
}

// eachRegion calls f once per region of free squares with its first square
// and its size; during the call the region's squares are the marked ones
// (mark == mgen).
func (r *reverse) eachRegion(f func(first uint16, size int)) {
	done := make([]bool, r.b.Squares)
	for s := range r.b.Squares {
		if r.occ[s] || done[s] {
			continue
		}
		n := r.flood(uint16(s))
		for t := range r.b.Squares {
			done[t] = done[t] || r.mark[t] == r.mgen
		}
		f(uint16(s), n)
	}
}

// pulls runs the breadth-first search of pulls of the box on q, the other
// boxes standing still, with the player starting in region. It calls
// visit with each square the box reaches, the player's square after the
// last pull and the distance in pulls, in order of distance (a square once
// per side the player can stand on); visit returns false to stop.
func (r *reverse) pulls(q uint16, visit func(sq, player uint16, dist int32) bool) {
	b := r.b
	clear(r.seen)
	r.occ[q] = false
	defer func() { r.occ[q] = true }()
	r.queue = r.queue[:0]
	for e := range 4 {
		if n := b.Nbr[int(q)*4+e]; n != r.wall && r.region[n] {
			st := uint32(q)*4 + uint32(e)
			r.seen[st] = true
			r.dist[st] = 0
			r.queue = append(r.queue, st)
		}
	}
	for h := 0; h < len(r.queue); h++ {
		st := r.queue[h]
		t, e := uint16(st>>2), int(st&3)
		if !visit(t, b.Nbr[int(t)*4+e], r.dist[st]) {
			return
		}
		r.occ[t] = true
		r.flood(b.Nbr[int(t)*4+e])
		for f := range 4 {
			if n := b.Nbr[int(t)*4+f]; n != r.wall && r.mark[n] == r.mgen {
				r.seen[uint32(t)*4+uint32(f)] = true
			}
		}
		for d := range 4 {
			a := b.Nbr[int(t)*4+d]
			if a == r.wall || r.mark[a] != r.mgen {
				continue
			}
			p2 := b.Nbr[int(a)*4+d]
			if r.occ[p2] {
				continue
			}
			nst := uint32(a)*4 + uint32(d)
			if r.seen[nst] {
				continue
			}
			r.seen[nst] = true
			r.dist[nst] = r.dist[st] + 1
			r.queue = append(r.queue, nst)
		}
		r.occ[t] = false
	}
}

// outDistance returns the fewest pulls that take the box on q outside the
// goal area, or board.Inf when no chain of pulls takes it on to a square
// a box starts on. Going by the distance alone would let a box leave into
// a sink: a dead end far enough from the goals that no box can ever come
// from there (a corridor below a goal room, say, which the player reaches
// only through the room), and a plan that empties the goal
// area that way cannot be packed forwards.
func (r *reverse) outDistance(q uint16) int {
	best, reached := int(board.Inf), false
	r.pulls(q, func(sq, _ uint16, d int32) bool {
		if r.out[sq] && best == int(board.Inf) {
			best = int(d)
		}
		if r.source[sq] {
			best, reached = min(best, int(d)), true
			return false
		}
		return true
	})
	if !reached {
		return int(board.Inf)
	}
	return best
}

// parkingSquares lists the squares, nearest first, where the box on q can
// be parked: reachable by pulls, not goals, inside the goal area or, once
// the search parks in sinks, in a sink.
func (r *reverse) parkingSquares(q uint16) []uint16 {
	var out []uint16
	r.pulls(q, func(sq, _ uint16, _ int32) bool {
		if sq != q && r.b.GoalIndex[sq] < 0 && (!r.out[sq] || r.sinks && r.sink[sq]) && !slices.Contains(out, sq) {
			out = append(out, sq)
		}
		return len(out) < maxParkTries
	})
	return out
}

// pushDistances returns the push distance of a lone box from every square
// to target, by pulls from the target that need only floor behind the
// player.
func (r *reverse) pushDistances(target uint16) []uint16 {
	b := r.b
	d := make([]uint16, b.Squares+1)
	for i := range d {
		d[i] = board.Inf
	}
	d[target] = 0
	q := []uint16{target}
	for h := 0; h < len(q); h++ {
		t := q[h]
		for dir := range 4 {
			a := b.Nbr[int(t)*4+dir]
			if a == r.wall || b.Nbr[int(a)*4+dir] == r.wall || d[a] != board.Inf {
				continue
			}
			d[a] = d[t] + 1
			q = append(q, a)
		}
	}
	return d
}
