package engine

import (
	"fmt"
	"slices"
)

// The backward search (after the backward half of YASS's perimeter search,
// which alone solves some levels): a best-first search over pulls, from
// the solved positions to the start. Where the goals lie in the middle of a
// level and the boxes on them must first make room for the others, the
// forward bound cannot see that those boxes have to leave, and the forward
// search drifts over every position of equal bound; from the solved side,
// the distance of the boxes to their start squares leads straight there.
// The search runs beside the forward searches in turns (interleave.go), in
// its own part of the memory, and drops out when that is full. Its pulls,
// read backwards, are the pushes of a solution, which Solve replays like
// any other. Its positions are also a perimeter around the solved ones
// (YASS's perimeter search): a forward search that reaches one of them
// (expand.go) joins its path to the pulls from there.
//
// A position's key is its boxes' Zobrist keys with that of its player's
// region, named by its lowest square; the level's start has one key, and a
// position reached with it is the start. Positions are rebuilt from the
// solved position along their record chain, as the forward search does.

// pullSearch is the state of one backward search; everything it touches
// per position is allocated in newPullSearch.
type pullSearch struct {
	b    *Board
	nbr  []uint16
	wall uint16
	tt   *table
	// open is greedy (f = bound, ties to the deepest): beside an A* list
	// taken in turns, as the forward search has, it reaches the start in
	// fewer positions, and the forward searches meet it as often.
	open       *openQueue
	eval       *evaluator
	diag       []uint16 // diag[sq*4+d]: the square between sq's neighbours in directions d and d+1
	verifyNorm bool     // tests: check childNorm against a flood

	// the current position
	boxAt  []int16
	boxes  []uint16
	player uint16 // the player's square
	key    uint64
	g      int

	// reach stamps (rgen) the expanded position's player region, cstamp
	// (cgen) a child's
	reach, cstamp []uint32
	rgen, cgen    uint32
	// ostamp (rgen) and olow: the other regions of the expanded position,
	// flooded on demand, and each one's lowest square (regionLow)
	ostamp []uint32
	olow   []uint16
	queue  []uint16
	chain  []uint32 // scratch: the records from the current one to its root

	startKey uint64
	found    uint32 // the record of the start, once reached
	full     bool   // the search ended on its memory

	nodes, generated int64
}

// newPullSearch returns a backward search on b in ws, or nil where none
// can start: no region of the solved position has a bound, the open list
// cannot take the roots, or stop (nil for never), asked between the
// distance tables of the start squares, said to stop.
func newPullSearch(b *Board, ws *Workspace, stop func() bool) *pullSearch {
	n := b.Squares
	g := len(b.Goals)
	costs := pullCosts(b, stop)
	if costs == nil {
		return nil
	}
	ps := &pullSearch{
		b: b, nbr: b.Nbr, wall: uint16(n), tt: ws.tt, open: ws.queues[0],
		eval:  newEvaluator(b, &Heuristic{Costs: costs, Rule: RuleMatching}, g),
		diag:  diagonals(b),
		boxAt: make([]int16, n+1), boxes: make([]uint16, g),
		reach: make([]uint32, n+1), cstamp: make([]uint32, n+1), queue: make([]uint16, 0, n),
		ostamp: make([]uint32, n+1), olow: make([]uint16, n+1),
		found: noRecord,
	}
	for i := range ps.boxAt {
		ps.boxAt[i] = -1
	}
	ps.boxAt[n] = -2
	ps.setBoxes(b.StartBoxes)
	ps.cgen++
	ps.startKey = hashKey(ps.boxKey() ^ b.ZPlayer[ps.flood(b.StartPlayer, ps.cstamp, ps.cgen)])
	// The roots: every goal filled, the player in each region left.
	ps.setBoxes(b.Goals)
	ps.rgen++ // reach marks the squares of the regions with a root
	roots := 0
	for sq := uint16(0); sq < uint16(n); sq++ {
		if ps.boxAt[sq] != -1 || ps.reach[sq] == ps.rgen {
			continue
		}
		norm := ps.flood(sq, ps.reach, ps.rgen)
		key := hashKey(ps.boxKey() ^ b.ZPlayer[norm])
		id, ok := ps.tt.find(key)
		if ok || ps.tt.full() {
			continue
		}
		h := ps.eval.sync(ps.boxes, 0)
		if h >= infCost {
			continue
		}
		ps.tt.insert(id, key, noRecord, 0, norm, 0)
		if key == ps.startKey {
			ps.found = uint32(id) // the level is solved as it stands
		}
		if !ps.open.push(uint32(id), h, 0) {
			return nil
		}
		roots++
	}
	if roots == 0 {
		return nil
	}
	return ps
}

// diagonals returns, for every square, the squares diagonally next to it,
// diag[sq*4+d] between its neighbours in directions d and d+1 (mod 4), or
// the wall.
func diagonals(b *Board) []uint16 {
	n := b.Squares
	wall := uint16(n)
	diag := make([]uint16, (n+1)*4)
	for sq := 0; sq <= n; sq++ {
		for d := 0; d < 4; d++ {
			e := (d + 1) % 4
			x := b.Nbr[int(b.Nbr[sq*4+d])*4+e]
			if x == wall {
				x = b.Nbr[int(b.Nbr[sq*4+e])*4+d]
			}
			diag[sq*4+d] = x
		}
	}
	return diag
}

// pullCosts returns the pulls that bring a lone box from each square to
// each start square, costs[sq*goals+j] for the j-th start box: the pushes
// from that start square to the square, with the player on any side at
// first and then on the side the pushes leave it. The wall sentinel's row
// is Inf. It returns nil when stop (nil for never), asked before each start
// square, says to stop.
func pullCosts(b *Board, stop func() bool) []uint16 {
	n, g := b.Squares, len(b.Goals)
	wall := uint16(n)
	costs := make([]uint16, (n+1)*g)
	for i := range costs {
		costs[i] = Inf
	}
	seen := make([]int32, n*4)
	queue := make([]int32, 0, n*4)
	dists := make([]uint16, 0, n*4)
	for j, start := range b.StartBoxes {
		if stop != nil && stop() {
			return nil
		}
		stamp := int32(j + 1)
		queue, dists = queue[:0], dists[:0]
		visit := func(sq uint16, d int, dist uint16) {
			lbl := b.SideRegion[int(sq)*4+d]
			for e := 0; e < 4; e++ {
				if b.SideRegion[int(sq)*4+e] == lbl {
					seen[int(sq)*4+e] = stamp
				}
			}
			queue = append(queue, int32(sq)*4+int32(d))
			dists = append(dists, dist)
			costs[int(sq)*g+j] = min(costs[int(sq)*g+j], dist)
		}
		for d := 0; d < 4; d++ {
			if b.Nbr[int(start)*4+d] != wall && seen[int(start)*4+d] != stamp {
				visit(start, d, 0)
			}
		}
		for head := 0; head < len(queue); head++ {
			sq, d := uint16(queue[head]/4), int(queue[head]%4)
			lbl := b.SideRegion[int(sq)*4+d]
			for e := 0; e < 4; e++ {
				// A push towards e: the player on side e^2.
				if b.SideRegion[int(sq)*4+e^2] != lbl {
					continue
				}
				to := b.Nbr[int(sq)*4+e]
				if to == wall || seen[int(to)*4+e^2] == stamp {
					continue
				}
				visit(to, e^2, dists[head]+1)
			}
		}
	}
	return costs
}

// setBoxes places the boxes on squares sq, box i on sq[i].
func (ps *pullSearch) setBoxes(sq []uint16) {
	for _, s := range ps.boxes {
		ps.boxAt[s] = -1
	}
	copy(ps.boxes, sq)
	for i, s := range ps.boxes {
		ps.boxAt[s] = int16(i)
	}
}

// boxKey returns the Zobrist key of the current boxes.
func (ps *pullSearch) boxKey() uint64 {
	var k uint64
	for _, sq := range ps.boxes {
		k ^= ps.b.ZBox[sq]
	}
	return k
}

// flood stamps with gen in stamp the player's region from sq in the
// current position and returns its lowest square.
func (ps *pullSearch) flood(sq uint16, stamp []uint32, gen uint32) uint16 {
	q := append(ps.queue[:0], sq)
	stamp[sq] = gen
	low := sq
	for h := 0; h < len(q); h++ {
		c := q[h]
		for d := 0; d < 4; d++ {
			m := ps.nbr[int(c)*4+d]
			if ps.boxAt[m] != -1 || stamp[m] == gen {
				continue
			}
			stamp[m] = gen
			low = min(low, m)
			q = append(q, m)
		}
	}
	ps.queue = q
	return low
}

// rebuild makes record id the current position.
func (ps *pullSearch) rebuild(id uint32) {
	ps.chain = ps.chain[:0]
	for r := id; r != noRecord; r = ps.tt.slots[r].parent {
		ps.chain = append(ps.chain, r)
	}
	root := &ps.tt.slots[ps.chain[len(ps.chain)-1]]
	ps.setBoxes(ps.b.Goals)
	player := root.from
	for i := len(ps.chain) - 2; i >= 0; i-- {
		rec := &ps.tt.slots[ps.chain[i]]
		d := int(rec.dir())
		to := ps.nbr[int(rec.from)*4+d]
		bx := ps.boxAt[rec.from]
		ps.boxAt[rec.from], ps.boxAt[to] = -1, bx
		ps.boxes[bx] = to
		player = ps.nbr[int(to)*4+d]
	}
	ps.key = ps.tt.slots[id].key &^ keyFlags
	ps.g = int(ps.tt.slots[id].g)
	ps.player = player
}

// step expands one position. end is true when the search has found the
// start (solved) or can go no further: its open list is empty (the
// backward search proves nothing then: it prunes no more than the forward
// one, but it runs within a part of the memory) or its memory is full.
func (ps *pullSearch) step() (solved, end bool) {
	if ps.found != noRecord {
		return true, true
	}
	id, _, _, ok := ps.open.pop()
	if !ok {
		return false, true
	}
	ps.tt.slots[id].setClosed()
	ps.nodes++
	ps.rebuild(id)
	ps.rgen++
	pnorm := ps.flood(ps.player, ps.reach, ps.rgen)
	base := ps.key ^ ps.b.ZPlayer[pnorm]
	h0 := ps.eval.sync(ps.boxes, 0)
	for i := range ps.boxes {
		sq := ps.boxes[i]
		for d := 0; d < 4; d++ {
			p := ps.nbr[int(sq)*4+d]
			// minCost is infCost where no pull brings a box to a start square.
			if p == ps.wall || ps.boxAt[p] != -1 || ps.reach[p] != ps.rgen || ps.eval.minCost[p] >= infCost {
				continue
			}
			p2 := ps.nbr[int(p)*4+d]
			if p2 == ps.wall || ps.boxAt[p2] != -1 {
				continue
			}
			ps.generated++
			// Pull: the box to p, the player to p2.
			ps.boxAt[sq], ps.boxAt[p], ps.boxes[i] = -1, int16(i), p
			norm := ps.childNorm(sq, p, p2, pnorm)
			ps.boxAt[p], ps.boxAt[sq], ps.boxes[i] = -1, int16(i), sq
			key := hashKey(base ^ ps.b.ZBox[sq] ^ ps.b.ZBox[p] ^ ps.b.ZPlayer[norm])
			cid, seen := ps.tt.find(key)
			if seen {
				continue
			}
			h, _ := ps.eval.child(h0, i, p, p2, 1, false)
			if h >= infCost {
				continue
			}
			if ps.tt.full() {
				ps.full = true
				return false, true
			}
			g := min(ps.g+1, int(Inf)-1)
			ps.tt.insert(cid, key, id, uint16(g), sq, uint8(d))
			if key == ps.startKey {
				ps.found = uint32(cid)
				return true, true
			}
			if !ps.open.push(uint32(cid), h, g) {
				ps.full = true
				return false, true
			}
		}
	}
	return false, false
}

// childNorm returns the lowest square of the player's region after the
// pull just made, of the box on sq to p, the player from p to p2; the
// expanded position's region R is stamped in reach, its lowest square
// pnorm. Where p's other neighbours in R stay connected around it (its
// ring of eight), R without p stays connected: the child's region is that,
// with sq and the regions next to sq when sq has a neighbour in R. Those
// regions are flooded once per expansion (regionLow).
func (ps *pullSearch) childNorm(sq, p, p2, pnorm uint16) uint16 {
	if p == pnorm || !ps.ringConnected(p, sq) {
		ps.cgen++
		return ps.flood(p2, ps.cstamp, ps.cgen)
	}
	norm, inR := pnorm, false
	for d := 0; d < 4; d++ {
		if m := ps.nbr[int(sq)*4+d]; m != p && ps.boxAt[m] == -1 && ps.reach[m] == ps.rgen {
			inR = true
		}
	}
	if inR {
		norm = min(norm, sq)
		for d := 0; d < 4; d++ {
			if m := ps.nbr[int(sq)*4+d]; m != p && ps.boxAt[m] == -1 && ps.reach[m] != ps.rgen {
				norm = min(norm, ps.regionLow(m, sq))
			}
		}
	}
	if ps.verifyNorm {
		ps.cgen++
		if full := ps.flood(p2, ps.cstamp, ps.cgen); full != norm {
			panic(fmt.Sprintf("engine: backward childNorm %d, flood %d", norm, full))
		}
	}
	return norm
}

// regionLow returns the lowest square of the region around m, a square
// outside the expanded position's player region, in the expanded position
// (the box still on sq). Each region is flooded once per expansion: its
// squares are stamped with rgen in ostamp and keep its lowest square in
// olow.
func (ps *pullSearch) regionLow(m, sq uint16) uint16 {
	if ps.ostamp[m] != ps.rgen {
		ps.boxAt[sq] = -2 // the child's box has left sq; the expanded one's stands there
		low := ps.flood(m, ps.ostamp, ps.rgen)
		ps.boxAt[sq] = -1
		for _, q := range ps.queue {
			ps.olow[q] = low
		}
	}
	return ps.olow[m]
}

// ringConnected reports whether the free neighbours of p, taking square
// skip as blocked, are connected to each other through p's ring of eight
// squares, so that a box on p separates none of them.
func (ps *pullSearch) ringConnected(p, skip uint16) bool {
	free := func(sq uint16) bool { return ps.boxAt[sq] == -1 && sq != skip }
	open, links := 0, 0
	for d := 0; d < 4; d++ {
		a := ps.nbr[int(p)*4+d]
		if !free(a) {
			continue
		}
		open++
		if b := ps.nbr[int(p)*4+(d+1)%4]; free(b) && free(ps.diag[int(p)*4+d]) {
			links++
		}
	}
	return open-links <= 1
}

// pushes returns the solution the search found, as pushes from the start:
// never nil, also where the start is solved.
func (ps *pullSearch) pushes() []push { return ps.pushesFrom([]push{}, ps.found) }

// pushesFrom appends to out the pushes that solve the position of record
// id: its pulls back to the root, each made a push the other way.
func (ps *pullSearch) pushesFrom(out []push, id uint32) []push {
	out = slices.Grow(out, int(ps.tt.slots[id].g))
	for r := id; r != noRecord; r = ps.tt.slots[r].parent {
		rec := &ps.tt.slots[r]
		if rec.parent == noRecord {
			break
		}
		d := rec.dir()
		out = append(out, push{from: ps.nbr[int(rec.from)*4+int(d)], dir: d ^ 2})
	}
	return out
}

// memoryUsed is the memory the search's part of the workspace has taken.
func (ps *pullSearch) memoryUsed() int64 {
	return ps.tt.bytesTouched() + int64(ps.open.pool.peak)*openEntryBytes
}
