package engine

// The position on the board: moving boxes and the player, keeping the
// Zobrist hash, the goal count and the deadlock counters.

// moveBox moves box i from square from to square to, keeping the hash, the
// goal count and the deadlock counters; the player does not move.
func (s *searcher) moveBox(i int, from, to uint16) {
	s.boxAt[from] = -1
	s.boxAt[to] = int16(i)
	s.boxes[i] = to
	s.boxHash ^= s.zbox[from] ^ s.zbox[to]
	if s.goals[from] >= 0 {
		s.onGoal--
	}
	if s.goals[to] >= 0 {
		s.onGoal++
	}
	if s.cnt != nil {
		s.cnt.place(from, -1)
		s.cnt.place(to, 1)
	}
}

// doPush moves box i from its square one step in direction dir; the player
// ends on the box's old square.
func (s *searcher) doPush(i int, dir uint8) {
	from := s.boxes[i]
	s.moveBox(i, from, s.nbr[int(from)*4+int(dir)])
	s.player = from
}

// doMove makes push p of box i with its tunnel pushes (p.more).
func (s *searcher) doMove(i int, p push) {
	last, end := s.span(p)
	s.moveBox(i, p.from, end)
	s.player = last
}

// undoPush takes back push p, tunnel pushes included: the box goes back to
// p.from and the player to player.
func (s *searcher) undoPush(p push, player uint16) {
	_, to := s.span(p)
	s.moveBox(int(s.boxAt[to]), to, p.from)
	s.player = player
}
