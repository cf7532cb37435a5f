package board

import (
	"context"
	"fmt"
	"slices"
)

// Goal areas and their packing order, in the style of Rolling Stone's goal
// macros and YASS's packing order.
//
// A goal area is a maximal set of goal squares connected through goal
// squares (4-neighbourhood), of minAreaGoals to maxAreaGoals squares. Only
// goal squares belong to an area: a non-goal square between goals splits
// them into two areas. That keeps the definition exact and cheap, and it
// covers the goal rows, columns and blocks that goal rooms are made of.
//
// An entrance of an area is a square e off it with a direction d such that
// e+d is in the area, e-d is floor, and a lone box starting on some box's
// start square off the area can be pushed to e without entering the area
// (orderSearch.outside): boxes really come in from there. A square next to
// the area that boxes only reach through the area (a pocket behind it) is
// no entrance.
//
// The packing order is computed once per level by a reverse search on a
// board where the area is filled and every other box is ignored: a box is
// pulled out of the area to an entrance, through empty area squares only,
// the player starting in the region of the anchor (the player's start
// square, or when that lies in the area the first square off it); the goal
// it came from is the last one to fill. Among the goals that can be pulled
// out, the one with the fewest pulls goes last (the goal nearest an
// entrance is filled last). The rest are ordered the same way. Taking any
// goal that can be pulled out never loses an order that exists: removing a
// box from the area only frees squares, so every pull possible before is
// possible after. When at some step no box can be pulled out, the area has
// no order and is left out of Board.Areas. Forward, the order says: with
// the goals before o_k filled (and no other boxes near), a box on some
// entrance can be pushed to o_k through the area.

const (
	// minAreaGoals and maxAreaGoals bound the size of a goal area. A lone
	// goal is no area: it has no packing order to follow. The upper bound
	// caps the order computation, quadratic in the area's size with a
	// flood fill per pull state.
	minAreaGoals = 2
	maxAreaGoals = 64
)

// GoalArea is one goal area with its packing order.
type GoalArea struct {
	// Squares are the area's goal squares, ascending.
	Squares []uint16
	// Order lists them in the order they are filled: Order[0] first.
	Order []uint16
	// Entrances are the area's entrances, ascending.
	Entrances []uint16
}

// computeGoalAreas finds the goal areas, their entrances and packing
// orders (see GoalArea), and fills b.Areas, b.InArea and b.EntranceArea.
func (b *Board) computeGoalAreas(ctx context.Context) error {
	n := b.Squares
	wall := uint16(n)
	b.InArea = make([]int16, n+1)
	b.EntranceArea = make([]int16, n+1)
	for i := range b.InArea {
		b.InArea[i], b.EntranceArea[i] = -1, -1
	}
	if n == 0 {
		return nil
	}
	seen := make([]bool, n)
	po := newOrderSearch(b)
	for _, g0 := range b.Goals {
		if seen[g0] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("board: analysis stopped: %w", err)
		}
		seen[g0] = true
		comp := []uint16{g0}
		for k := 0; k < len(comp); k++ {
			for d := 0; d < 4; d++ {
				m := b.Nbr[int(comp[k])*4+d]
				if m != wall && b.GoalIndex[m] >= 0 && !seen[m] {
					seen[m] = true
					comp = append(comp, m)
				}
			}
		}
		if len(comp) < minAreaGoals || len(comp) > maxAreaGoals {
			continue
		}
		slices.Sort(comp)
		order, entrances := po.order(comp)
		if order == nil {
			continue
		}
		a := int16(len(b.Areas))
		for _, sq := range comp {
			b.InArea[sq], b.EntranceArea[sq] = a, a
		}
		b.Areas = append(b.Areas, GoalArea{Squares: comp, Order: order, Entrances: entrances})
	}
	// A square that is the entrance of two areas is the first one's.
	for ai := range b.Areas {
		for _, e := range b.Areas[ai].Entrances {
			if b.EntranceArea[e] < 0 {
				b.EntranceArea[e] = int16(ai)
			}
		}
	}
	return nil
}

// orderSearch is the scratch of the packing-order computation.
type orderSearch struct {
	b        *Board
	filled   []bool // boxes of the reverse search: the area's filled goals
	inComp   []bool // the area being ordered
	out      []bool // squares a box from outside reaches without entering it
	fl       *BlockedFlood
	start    []int32 // the anchor's region: start[sq] == startGen
	startGen int32
	visited  []int32 // pull states sq*4+side: enqueued
	expand   []int32 // pull states: expanded (the region's sides at once)
	vgen     int32
	queue    []int32
	dist     []uint16
}

func newOrderSearch(b *Board) *orderSearch {
	n := b.Squares
	return &orderSearch{b: b, filled: make([]bool, n+1), inComp: make([]bool, n+1), out: make([]bool, n+1), fl: NewBlockedFlood(b), start: make([]int32, n+1),
		visited: make([]int32, n*4), expand: make([]int32, n*4), dist: make([]uint16, n*4)}
}

// order returns the packing order of the area comp (ascending squares)
// and its entrances, or nil when there is no order.
func (o *orderSearch) order(comp []uint16) (order, entrances []uint16) {
	b := o.b
	for _, sq := range comp {
		o.filled[sq], o.inComp[sq] = true, true
	}
	defer func() {
		for _, sq := range comp {
			o.filled[sq], o.inComp[sq] = false, false
		}
	}()
	o.outside()
	wall := b.Wall()
	for _, sq := range comp {
		for d := 0; d < 4; d++ {
			e := b.Nbr[int(sq)*4+(d^2)] // the box comes from e, pushed in direction d
			if e != wall && o.out[e] && b.Nbr[int(e)*4+(d^2)] != wall {
				entrances = append(entrances, e)
			}
		}
	}
	if len(entrances) == 0 {
		return nil, nil
	}
	slices.Sort(entrances)
	entrances = slices.Compact(entrances)
	anchor := b.StartPlayer
	if o.inComp[anchor] {
		anchor = b.Wall()
		for sq := uint16(0); int(sq) < b.Squares; sq++ {
			if !o.inComp[sq] {
				anchor = sq
				break
			}
		}
		if anchor == b.Wall() {
			return nil, nil
		}
	}
	order = make([]uint16, len(comp))
	for k := len(comp) - 1; k >= 0; k-- {
		// The anchor's region, the same for every candidate of this step.
		o.startGen = o.flood(anchor, wall)
		copy(o.start, o.fl.Reach)
		best, bestDist := b.Wall(), uint16(Inf)
		for _, g := range comp {
			if !o.filled[g] {
				continue
			}
			if d := o.pullOut(g, bestDist); d < bestDist {
				best, bestDist = g, d
			}
		}
		if best == b.Wall() {
			return nil, nil
		}
		order[k] = best
		o.filled[best] = false
	}
	return order, entrances
}

// outside fills o.out with the squares off the area that a lone box
// starting on a box's start square off the area reaches by pushes without
// entering the area (the player walks anywhere): the squares boxes come
// into the area from. It searches states (square, player side) as
// computeDistances does, forward.
func (o *orderSearch) outside() {
	b := o.b
	wall := b.Wall()
	clear(o.out)
	o.vgen++
	seen := o.vgen // marks states sq*4+side in o.visited
	o.queue = o.queue[:0]
	visit := func(sq uint16, d int) {
		lbl := b.SideRegion[int(sq)*4+d]
		for e := 0; e < 4; e++ {
			if b.SideRegion[int(sq)*4+e] == lbl {
				o.visited[int(sq)*4+e] = seen
			}
		}
		o.out[sq] = true
		o.queue = append(o.queue, int32(sq)*4+int32(d))
	}
	for _, sq := range b.StartBoxes {
		if o.inComp[sq] {
			continue
		}
		lbl := b.Region(sq, b.StartPlayer)
		for d := 0; d < 4; d++ {
			if b.Nbr[int(sq)*4+d] != wall && b.SideRegion[int(sq)*4+d] == lbl && o.visited[int(sq)*4+d] != seen {
				visit(sq, d)
				break
			}
		}
	}
	for head := 0; head < len(o.queue); head++ {
		st := o.queue[head]
		sq, d := uint16(st/4), int(st%4)
		lbl := b.SideRegion[int(sq)*4+d]
		for e := 0; e < 4; e++ {
			// Push towards e from the side opposite, if it is the
			// player's.
			if b.SideRegion[int(sq)*4+(e^2)] != lbl || b.Nbr[int(sq)*4+(e^2)] == wall {
				continue
			}
			t := b.Nbr[int(sq)*4+e]
			if t == wall || o.inComp[t] || b.Dead[t] || o.visited[int(t)*4+(e^2)] == seen {
				continue
			}
			visit(t, e^2)
		}
	}
}

// flood stamps the squares the player reaches from sq with the filled
// squares and box as obstacles; it returns the stamp.
func (o *orderSearch) flood(sq, box uint16) int32 {
	gen, _ := o.fl.Run(o.b, sq, box, o.filled)
	return gen
}

// pullOut returns the fewest pulls that take the box on goal g out of the
// area to an entrance, through empty area squares, the player starting in
// the anchor's region; Inf when it cannot get out in fewer than limit.
func (o *orderSearch) pullOut(g, limit uint16) uint16 {
	b := o.b
	wall := b.Wall()
	o.filled[g] = false
	defer func() { o.filled[g] = true }()
	o.vgen++
	vg := o.vgen
	o.queue = o.queue[:0]
	for e := 0; e < 4; e++ {
		if q := b.Nbr[int(g)*4+e]; q != wall && o.start[q] == o.startGen {
			st := int32(g)*4 + int32(e)
			o.visited[st], o.dist[st] = vg, 0
			o.queue = append(o.queue, st)
		}
	}
	for head := 0; head < len(o.queue); head++ {
		st := o.queue[head]
		if o.expand[st] == vg {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		dist := o.dist[st]
		if dist+1 >= limit {
			break // breadth-first: nothing better is left
		}
		fg := o.flood(b.Nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if q := b.Nbr[int(box)*4+e]; q != wall && o.fl.Reach[q] == fg {
				o.expand[int(box)*4+e] = vg
			}
		}
		for e := 0; e < 4; e++ {
			// Pull towards e: the player on q steps on to q2, the box
			// follows onto q.
			q := b.Nbr[int(box)*4+e]
			if q == wall || o.fl.Reach[q] != fg {
				continue
			}
			q2 := b.Nbr[int(q)*4+e]
			if q2 == wall || o.filled[q2] {
				continue
			}
			if !o.inComp[q] {
				if o.out[q] {
					return dist + 1
				}
				continue // a square boxes from outside never reach
			}
			ns := int32(q)*4 + int32(e)
			if o.visited[ns] == vg {
				continue
			}
			o.visited[ns], o.dist[ns] = vg, dist+1
			o.queue = append(o.queue, ns)
		}
	}
	return Inf
}
