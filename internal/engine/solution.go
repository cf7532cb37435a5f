package engine

import (
	"fmt"

	"github.com/sokod/sokod/sokoban"
)

// buildSolution turns a push path into LURD: before each push the player
// takes a shortest walk (breadth-first, around the boxes) to the square
// behind the box. For a fixed push sequence this minimises moves, since
// every walk starts where the previous push left the player. It runs once
// per solved search, so it allocates freely.
func buildSolution(b *Board, pushes []push) (sokoban.Solution, error) {
	n := b.Squares
	wall := uint16(n)
	occupied := make([]bool, n+1)
	occupied[n] = true
	for _, s := range b.StartBoxes {
		occupied[s] = true
	}
	player := b.StartPlayer
	prev := make([]int32, n+1)
	queue := make([]uint16, 0, n)
	var sol sokoban.Solution
	for k, p := range pushes {
		if !occupied[p.from] {
			return nil, fmt.Errorf("engine: internal error: push %d moves no box", k+1)
		}
		target := b.Nbr[int(p.from)*4+int(p.dir^2)]
		to := b.Nbr[int(p.from)*4+int(p.dir)]
		if target == wall || to == wall || occupied[target] || occupied[to] {
			return nil, fmt.Errorf("engine: internal error: push %d is blocked", k+1)
		}
		// Breadth-first search from the player to target.
		for i := range prev {
			prev[i] = -1
		}
		queue = append(queue[:0], player)
		prev[player] = int32(player)
		for h := 0; h < len(queue) && prev[target] < 0; h++ {
			c := queue[h]
			for d := 0; d < 4; d++ {
				m := b.Nbr[int(c)*4+d]
				if m == wall || occupied[m] || prev[m] >= 0 {
					continue
				}
				prev[m] = int32(c)
				queue = append(queue, m)
			}
		}
		if prev[target] < 0 {
			return nil, fmt.Errorf("engine: internal error: push %d: the player cannot reach the box", k+1)
		}
		var walk []sokoban.Direction
		for c := target; c != player; c = uint16(prev[c]) {
			pc := uint16(prev[c])
			for d := 0; d < 4; d++ {
				if b.Nbr[int(pc)*4+d] == c {
					walk = append(walk, sokoban.Direction(d))
					break
				}
			}
		}
		for i := len(walk) - 1; i >= 0; i-- {
			sol = append(sol, sokoban.Step{Dir: walk[i]})
		}
		sol = append(sol, sokoban.Step{Dir: sokoban.Direction(p.dir), Push: true})
		occupied[p.from] = false
		occupied[to] = true
		player = p.from
	}
	return sol, nil
}
