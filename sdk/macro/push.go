package macro

// Pushes appends to out the legal single pushes of pos: for each box, in
// the order of pos.Boxes, and each direction, in LURD order, a push whose
// target square is free floor and whose square behind the box the player
// reaches. Dead squares and deadlocks are not filtered: the deadlock tests
// tell those apart. Each push is a Move of one square, with the player's
// region after it (Norm; the push's direction is Side^2, Side being where
// the player stands) and the hash of the position it leads to; Regions is
// not computed (-1). It uses the flood marks.
func (g *Gen) Pushes(pos *Pos, out []Move) []Move {
	b := g.b
	start := len(out)
	g.Flood(pos, pos.Player)
	for i, x := range pos.Boxes {
		for d := range 4 {
			to, behind := g.nbr[int(x)*4+d], g.nbr[int(x)*4+d^2]
			if behind != g.wall && g.Reached(behind) && pos.BoxAt[to] == -1 {
				out = append(out, Move{Box: int16(i), Side: uint8(d ^ 2), From: x, To: to, Regions: -1})
			}
		}
	}
	// The player's region after each push needs a flood of its own, which
	// would have spoilt the reach the pushes were read from.
	base := BoxHash(b, pos.Boxes)
	for k := range out[start:] {
		m := &out[start+k]
		pos.BoxAt[m.From], pos.BoxAt[m.To] = -1, m.Box
		m.Norm = g.Flood(pos, m.From)
		pos.BoxAt[m.From], pos.BoxAt[m.To] = m.Box, -1
		m.Hash = base ^ b.ZBox[m.From] ^ b.ZBox[m.To] ^ b.ZPlayer[m.Norm]
	}
	return out
}
