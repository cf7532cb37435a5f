package macro

import (
	"fmt"
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// Solution rebuilds the LURD moves from the level's start to node id of
// store: each macro move becomes the box's pushes, found again by the
// box's breadth-first search, with the player's shortest walk before each
// push. It runs once per solved plan, so it allocates freely.
func (g *Gen) Solution(store *Store, id int32) (sokoban.Solution, error) {
	b := g.b
	path := store.Path(id)
	pos := NewPos(b)
	store.Load(path[0], pos)
	player := b.StartPlayer
	pos.Player = player
	var sol sokoban.Solution
	for k, n := range path[1:] {
		nd := store.Nodes[n]
		i := int(nd.Box)
		if i < 0 || pos.Boxes[i] != nd.From {
			return nil, fmt.Errorf("macro move %d: box %d is not on square %d", k+1, i, nd.From)
		}
		tgt := pathTarget{to: nd.To, norm: store.Norm(n)}
		pos.Player = player
		g.boxMoves(pos, i, 0, nil, &tgt)
		if !tgt.ok {
			return nil, fmt.Errorf("macro move %d: box %d cannot be pushed from square %d to %d", k+1, i, nd.From, nd.To)
		}
		var states []uint32
		for st := tgt.found; ; st = g.prev[st] {
			states = append(states, st)
			if g.prev[st] == st {
				break
			}
		}
		slices.Reverse(states)
		for _, st := range states[1:] {
			t, e := uint16(st>>2), int(st&3)
			d := e ^ 2 // the push direction: the player came from side e
			q := b.Nbr[int(t)*4+e]
			walk, err := Walk(b, pos, player, b.Nbr[int(q)*4+e])
			if err != nil {
				return nil, fmt.Errorf("macro move %d: %w", k+1, err)
			}
			sol = append(sol, walk...)
			sol = append(sol, sokoban.Step{Dir: sokoban.Direction(d), Push: true})
			bi := pos.BoxAt[q]
			pos.BoxAt[q] = -1
			pos.BoxAt[t] = bi
			pos.Boxes[bi] = t
			player = q
		}
	}
	return sol, nil
}

// Walk returns the player's shortest walk on board b from one square to
// another around the boxes of pos. It allocates: it is for rebuilding
// solutions, not for search.
func Walk(b *board.Board, pos *Pos, from, to uint16) ([]sokoban.Step, error) {
	if from == to {
		return nil, nil
	}
	prev := make([]int32, b.Squares+1)
	for i := range prev {
		prev[i] = -1
	}
	prev[from] = int32(from)
	queue := []uint16{from}
	for h := 0; h < len(queue) && prev[to] < 0; h++ {
		c := queue[h]
		for d := range 4 {
			m := b.Nbr[int(c)*4+d]
			if pos.BoxAt[m] != -1 || prev[m] >= 0 {
				continue
			}
			prev[m] = int32(c)
			queue = append(queue, m)
		}
	}
	if prev[to] < 0 {
		return nil, fmt.Errorf("the player cannot walk from square %d to %d", from, to)
	}
	var steps []sokoban.Step
	for c := to; c != from; c = uint16(prev[c]) {
		pc := uint16(prev[c])
		for d := range 4 {
			if b.Nbr[int(pc)*4+d] == c {
				steps = append(steps, sokoban.Step{Dir: sokoban.Direction(d)})
				break
			}
		}
	}
	slices.Reverse(steps)
	return steps, nil
}
