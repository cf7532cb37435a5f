package engine

// Tunnel macros.
//
// A square t is a tunnel square for direction d (Board.Slide, bit d; computed by package board) when:
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
// push the box back.
//
// The rule: when a push leaves a box on a square t that is a tunnel square
// for the push's direction d, and t+d is free and not a dead square, the box
// is pushed on to t+d at once, as part of the same move, and again from
// there while the rule holds. Each push counts; the record stores the last
// one, and the rest are recovered by walking back to the box (goTo,
// pushPath).
//
// Lemma. Let X be a position with a box B on a tunnel square t for d and the
// player in a's region (C, a region of the floor without t). Every solution
// S of X of k pushes can be turned into one of k pushes whose first push is
// B from t to t+d.
//
// Proof. B is off a goal (1), so S moves it; let s_j be its first push. Until
// then the player stays in C, since only t, which holds B, joins C to the
// rest of the floor; so every push before s_j moves a box within C (its
// square and target are next to the player's, so in C too), and squares
// outside C, t+d among them, keep their contents. A push of B needs the
// player on a neighbour of t in C, and by (3) that is a only: s_j is the
// push from t to t+d. Now make it first: t+d is free at s_j, so it is free
// in X. Before s_j no push touches t or t+d; moving B from t to t+d frees t
// (a dead end off a for the player, or a way into other regions: either way
// it only adds to where the player can go) and leaves C as it was, so
// s_1..s_{j-1} stay legal. After them the boxes are where they are after s_j
// in S, and the player's region holds t (the player walked to a, next to
// the free t, to make s_j), as it does after s_j: the same position. The
// rest of S follows unchanged. The new solution has k pushes.
//
// Consequences. A position that a shortest solution passes through, entered
// by a push onto a tunnel square, has a shortest solution that goes on
// through the tunnel; by induction over the macro's pushes, the position at
// the macro's end is on a shortest solution too, the same number of pushes
// from the start. So every child that the plain search would keep on a
// shortest path is replaced by one that keeps it: completeness holds, and
// under ObjectivePushes A* and IDA* (edges of several pushes, each counted;
// the bound stays admissible and consistent, every macro being a chain of
// real pushes) still prove push-optimality. PI-corral pruning composes: it
// keeps a shortest-solution push among the pushes generated, and the macro
// keeps its continuation. The macro stops, the position standing as it is,
// at a goal (1), where the tunnel ends (2, 3), where a box blocks t+d or
// t+d is dead (positions the lemma shows to be deadlocks: pruned, counted
// in Stats.Stuck), and after maxMacro pushes. Stopping early never
// loses anything: it only keeps a position the rule would skip.

// maxMacro is the most pushes one macro makes (push.more is a uint8).
const maxMacro = 256

// slideOn continues the push p of box i, just made (the box now on to), as
// a tunnel macro: it pushes the box on while the rule allows and returns the
// push with its extra pushes counted in more, and the box's final square.
// stuck reports a deadlock: the box stopped on a tunnel square with a box
// or a dead square of the board ahead, so by the lemma it can never move.
// (Only the board's own dead squares count: a plugin's are no proof.)
func (s *searcher) slideOn(i int, p push, to uint16) (q push, end uint16, stuck bool) {
	p, to, stuck = s.slideRun(i, p, to)
	if p.more > 0 {
		s.macros++
		s.macroPushes += int64(p.more)
	}
	return p, to, stuck
}

// slideRun is slideOn without the statistics, for moves made again
// (redoGoal).
func (s *searcher) slideRun(i int, p push, to uint16) (q push, end uint16, stuck bool) {
	if !s.tunnels {
		return p, to, false
	}
	bit := uint8(1) << p.dir
	for s.slide[to]&bit != 0 && int(p.more) < maxMacro-1 {
		next := s.nbr[int(to)*4+int(p.dir)]
		if s.boxAt[next] != -1 || s.dead[next] {
			stuck = s.boxAt[next] != -1 || s.b.Dead[next]
			break
		}
		s.moveBox(i, to, next)
		s.player = to
		to = next
		p.more++
	}
	return p, to, stuck
}

// span returns where the player stands after push p (the square the box
// left last) and the box's final square.
func (s *searcher) span(p push) (last, end uint16) {
	if p.goal {
		return p.last, p.end
	}
	last = p.from
	for k := uint8(0); k < p.more; k++ {
		last = s.nbr[int(last)*4+int(p.dir)]
	}
	return last, s.nbr[int(last)*4+int(p.dir)]
}

// macroStart returns the macro push whose last push is (last, dir), in the
// position before it: the box is the first one behind last, inclusive.
func (s *searcher) macroStart(last uint16, dir uint8) push {
	p := push{from: last, dir: dir}
	back := int(dir ^ 2)
	for s.boxAt[p.from] == -1 {
		p.from = s.nbr[int(p.from)*4+back]
		p.more++
	}
	return p
}
