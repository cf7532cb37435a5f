package engine

import "fmt"

// Penalty patterns (Heuristic.Penalties): a set of squares and a cost that
// is added to the bound of every position with a box on each of the
// squares. They are what a pattern database compiles to. The evaluator
// keeps, per pattern, the number of its squares that hold a box, and the sum
// of the costs of the patterns whose squares are all taken; a push updates
// the patterns of its two squares only, so patterns cost nothing per
// position beyond the squares a push touches (as Deadlocks sets do).

// Penalty adds Cost to the bound of every position in which boxes stand on
// all of Squares. The costs of all the patterns a position matches are
// summed; Heuristic.Admissible then covers the combined costs and that
// sum together.
type Penalty struct {
	Squares []uint16
	Cost    int
}

// checkPenalties validates patterns against b.
func checkPenalties(name string, b *Board, ps []Penalty) error {
	for i, p := range ps {
		if len(p.Squares) == 0 || p.Cost < 0 || p.Cost >= Inf {
			return fmt.Errorf("engine: heuristic %q: penalty %d: %d squares, cost %d (want squares and 0 <= cost < %d)", name, i, len(p.Squares), p.Cost, Inf)
		}
		for _, s := range p.Squares {
			if int(s) >= b.Squares {
				return fmt.Errorf("engine: heuristic %q: penalty %d: square %d of %d", name, i, s, b.Squares)
			}
		}
	}
	return nil
}

// penalties tracks the patterns of one evaluator: per pattern the boxes on
// its squares, per square the patterns holding it, and the current position
// as the squares of its boxes.
type penalties struct {
	size    []int32 // distinct squares of each pattern
	count   []int32 // of those, the squares holding a box now
	cost    []int32
	first   []int32 // patterns of square s: members[first[s]:first[s+1]]
	members []int32
	sq      []uint16 // square of each box; the wall sentinel before the first sync
	sum     int      // cost of the patterns matched now
}

// newPenalties compiles ps for b and boxes boxes; nil when there are none.
func newPenalties(b *Board, ps []Penalty, boxes int) *penalties {
	if len(ps) == 0 {
		return nil
	}
	p := &penalties{size: make([]int32, len(ps)), count: make([]int32, len(ps)), cost: make([]int32, len(ps))}
	per := make([][]int32, b.Squares+1)
	seen := make([]int, b.Squares+1)
	for k, pat := range ps {
		p.cost[k] = int32(pat.Cost)
		for _, s := range pat.Squares {
			if seen[s] != k+1 {
				seen[s] = k + 1
				per[s] = append(per[s], int32(k))
				p.size[k]++
			}
		}
	}
	// The sentinel square belongs to no pattern; boxes start there.
	p.first = make([]int32, b.Squares+2)
	for s, list := range per {
		p.first[s+1] = p.first[s] + int32(len(list))
		p.members = append(p.members, list...)
	}
	p.sq = make([]uint16, boxes)
	for i := range p.sq {
		p.sq[i] = uint16(b.Squares)
	}
	return p
}

// move takes a box from square from to square to.
func (p *penalties) move(from, to uint16) {
	for _, k := range p.members[p.first[from]:p.first[from+1]] {
		if p.count[k] == p.size[k] {
			p.sum -= int(p.cost[k])
		}
		p.count[k]--
	}
	for _, k := range p.members[p.first[to]:p.first[to+1]] {
		p.count[k]++
		if p.count[k] == p.size[k] {
			p.sum += int(p.cost[k])
		}
	}
}

// sync makes boxes the current position, moving the boxes whose square
// changed since the last sync, and returns the penalty.
func (p *penalties) sync(boxes []uint16) int {
	for i, s := range boxes {
		if p.sq[i] != s {
			p.move(p.sq[i], s)
			p.sq[i] = s
		}
	}
	return p.sum
}

// child returns the penalty of the current position with box i moved to
// square to, leaving the current position as it is.
func (p *penalties) child(i int, to uint16) int {
	from := p.sq[i]
	p.move(from, to)
	v := p.sum
	p.move(to, from)
	return v
}
