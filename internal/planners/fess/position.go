package fess

// move is a macro move: the box on cell from goes to cell to, pushed (or
// pulled in the base search) any number of times, and the player ends on
// side side of it (an index into level.d4). In the base search a move
// with base set takes the box off the board at to, a base.
type move struct {
	from, to int32
	side     int8
	base     bool
	// weight is the move's cost in the search tree: 0 for an advised
	// move, 1 for the others, -1 for the move into the perimeter.
	weight int8
	// norm is the first cell of the player's reach after the move.
	norm int32
}

// hash returns g's Zobrist key: its boxes, the player's reach (named by
// its first cell) and the bases still open.
func (lv *level) hash(g grid) uint64 { return lv.hashOf(g, true) }

// hashNoBases is hash without the bases: the key the base search's
// positions are met by in the forward search.
func (lv *level) hashNoBases(g grid) uint64 { return lv.hashOf(g, false) }

func (lv *level) hashOf(g grid, bases bool) uint64 {
	var h uint64
	first := true
	for _, c := range lv.cell {
		f := g[c]
		if f&box != 0 {
			h ^= lv.zBox[c]
		}
		if bases && f&base != 0 {
			h ^= lv.zBase[c]
		}
		if first && f&player != 0 {
			h ^= lv.zPlayer[c]
			first = false
		}
	}
	return h
}

// apply plays m on g (Festival's apply_move) and returns the first cell
// of the player's reach.
func (lv *level) apply(g grid, m *move, stack []int32) int32 {
	lv.clearPlayer(g)
	g[m.from] &^= box
	to := int(m.to)
	if m.base {
		g[to] &^= base
	} else {
		g[to] |= box
	}
	p := to + lv.d4[m.side]
	g[p] |= player
	return lv.flood(g, append(stack[:0], int32(p)))
}

// boxHash returns g's hash without the player: its boxes and open bases.
func (lv *level) boxHash(g grid) uint64 {
	var h uint64
	for _, c := range lv.cell {
		f := g[c]
		if f&box != 0 {
			h ^= lv.zBox[c]
		}
		if f&base != 0 {
			h ^= lv.zBase[c]
		}
	}
	return h
}

// childHash returns the hash of the position move m leads to from a
// position whose boxHash is hb.
func (lv *level) childHash(hb uint64, m *move) uint64 {
	h := hb ^ lv.zBox[m.from] ^ lv.zPlayer[m.norm]
	if m.base {
		return h ^ lv.zBase[m.to]
	}
	return h ^ lv.zBox[m.to]
}

// clearPlayer removes the player's reach from g.
func (lv *level) clearPlayer(g grid) {
	for _, c := range lv.cell {
		g[c] &^= player
	}
}

// countBoxes returns the boxes on g and those of them on targets.
func (lv *level) countBoxes(g grid) (boxes, onTargets int32) {
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			boxes++
			if g[c]&target != 0 {
				onTargets++
			}
		}
	}
	return boxes, onTargets
}

// connectivity returns the number of regions the free inner cells of g
// fall into (Festival's get_connectivity).
func (lv *level) connectivity(g grid, mark []uint32, gen *uint32, stack []int32) int32 {
	*gen++
	if *gen == 0 {
		clear(mark)
		*gen = 1
	}
	n := int32(0)
	for _, c := range lv.cell {
		if g[c]&occupied != 0 || mark[c] == *gen {
			continue
		}
		n++
		mark[c] = *gen
		stack = append(stack[:0], c)
		for len(stack) > 0 {
			x := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			for _, d := range lv.d4 {
				if y := x + d; g[y]&occupied == 0 && mark[y] != *gen {
					mark[y] = *gen
					stack = append(stack, int32(y))
				}
			}
		}
	}
	return n
}

// solvedPush reports whether every box of g is on a target.
func (lv *level) solvedPush(g grid) bool {
	for _, c := range lv.cell {
		if g[c]&box != 0 && g[c]&target == 0 {
			return false
		}
	}
	return true
}

// inPlacePull reports whether every box of g stands on a start square.
func (lv *level) inPlacePull(g grid) bool {
	for _, c := range lv.cell {
		if g[c]&box != 0 && lv.start[c]&box == 0 {
			return false
		}
	}
	return true
}

// solvedPull reports whether g, a position of the backward search, is the
// level's start: every box on a start square and the player able to reach
// its start square.
func (lv *level) solvedPull(g grid) bool {
	return g[lv.startPlayer]&player != 0 && lv.inPlacePull(g)
}
