package board

// BlockedFlood is the scratch of a player flood among blocked squares and
// one box, reused from flood to flood, for the reverse (pull) searches of
// packing orders: Reach[sq] equals the stamp Run returned for every square
// that flood reached.
type BlockedFlood struct {
	Reach []int32
	gen   int32
	queue []uint16
}

// NewBlockedFlood returns the scratch of floods on b.
func NewBlockedFlood(b *Board) *BlockedFlood {
	return &BlockedFlood{Reach: make([]int32, b.Squares+1), queue: make([]uint16, 0, b.Squares)}
}

// Run stamps the squares the player reaches from sq, with the squares
// marked in blocked and the square box as obstacles; it returns the stamp
// and the number of squares reached.
func (f *BlockedFlood) Run(b *Board, sq, box uint16, blocked []bool) (stamp int32, reached int) {
	f.gen++
	gen := f.gen
	if sq == b.Wall() || sq == box || blocked[sq] {
		return gen, 0
	}
	f.Reach[sq] = gen
	f.queue = append(f.queue[:0], sq)
	for k := 0; k < len(f.queue); k++ {
		c := int(f.queue[k]) * 4
		for _, m := range b.Nbr[c : c+4] {
			if m == b.Wall() || m == box || blocked[m] || f.Reach[m] == gen {
				continue
			}
			f.Reach[m] = gen
			f.queue = append(f.queue, m)
		}
	}
	return gen, len(f.queue)
}

// Fresh returns a stamp that no square holds yet, for a caller that marks
// squares itself in arrays it copied from Reach.
func (f *BlockedFlood) Fresh() int32 {
	f.gen++
	return f.gen
}
