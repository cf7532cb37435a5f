package board

// A square t is a tunnel square for direction d when:
//
//  1. t is not a goal,
//  2. the square ahead, t+d, is floor, and
//  3. with a lone box on t, of t's floor neighbours only a = t-d lies in a's
//     region of the floor: t is an articulation point of the floor and the
//     player standing behind the box can reach no other side of it.
//
// The corridor walled on both sides and not part of a loop is the common
// case; so is the first square beyond a one-square doorway into a room (the
// box there shuts the player out of the room). A corridor walled on both
// sides that lies on a loop is no tunnel: the player can walk round and
// push the box back. A box pushed onto a tunnel square can be pushed on at
// once without losing a solution; the engine's tunnel macros rest on that
// (internal/engine/tunnel.go has the proof).

// computeSlide fills b.Slide from the side labels (computeSides) and goals.
func (b *Board) computeSlide() {
	n := b.Squares
	wall := uint16(n)
	b.Slide = make([]uint8, n+1)
	for t := 0; t < n; t++ {
		if b.GoalIndex[t] >= 0 {
			continue
		}
		for d := 0; d < 4; d++ {
			back := d ^ 2
			if b.Nbr[t*4+d] == wall || b.Nbr[t*4+back] == wall {
				continue
			}
			lbl := b.SideRegion[t*4+back]
			ok := true
			for e := 0; e < 4; e++ {
				if e != back && b.Nbr[t*4+e] != wall && b.SideRegion[t*4+e] == lbl {
					ok = false
					break
				}
			}
			if ok {
				b.Slide[t] |= 1 << d
			}
		}
	}
}

// TunnelSquare reports whether sq is a tunnel square for a push in
// direction dir: a box pushed onto it that way may stop there only when it
// cannot go on. Unlike Tunnels, the runs walled on two sides that a
// drawing shows, this is the search's notion: a walled corridor on a loop
// is none, the square past a door into a room can be one.
func (b *Board) TunnelSquare(sq uint16, dir int) bool {
	return int(sq) < b.Squares && dir >= 0 && dir < 4 && b.Slide[sq]&(1<<dir) != 0
}
