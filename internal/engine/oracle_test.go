package engine

import (
	"slices"

	"github.com/sokod/sokod/sokoban"
)

// oraclePushes is the test oracle: a plain breadth-first search over pushes
// on the raw grid, with no pruning of any kind (no dead squares, no
// deadlock tests, no lower bound). It returns the fewest pushes that solve
// l, -1 when no solution exists, or -2 when more than limit states would be
// needed. It shares no code with the engine.
func oraclePushes(l *sokoban.Level, limit int) int {
	w, h := l.Width(), l.Height()
	cells := l.Cells()
	wall := make([]bool, w*h)
	goal := make([]bool, w*h)
	var boxes []int
	for i, c := range cells {
		wall[i] = c.Has(sokoban.Wall)
		goal[i] = c.Has(sokoban.Goal)
		if c.Has(sokoban.Box) {
			boxes = append(boxes, i)
		}
	}
	px, py := l.Player()
	step := func(i int, d sokoban.Direction) int {
		dx, dy := d.Delta()
		x, y := i%w+dx, i/w+dy
		if x < 0 || y < 0 || x >= w || y >= h || wall[y*w+x] {
			return -1
		}
		return y*w + x
	}
	occupied := make([]bool, w*h)
	// reach returns the reachable squares of the player (boxes in occupied).
	reach := func(p int) []bool {
		seen := make([]bool, w*h)
		seen[p] = true
		q := []int{p}
		for len(q) > 0 {
			c := q[0]
			q = q[1:]
			for d := sokoban.Left; d <= sokoban.Down; d++ {
				n := step(c, d)
				if n >= 0 && !seen[n] && !occupied[n] {
					seen[n] = true
					q = append(q, n)
				}
			}
		}
		return seen
	}
	type state struct {
		boxes  []int
		player int
	}
	key := func(bx []int, seen []bool) string {
		norm := slices.Index(seen, true)
		k := make([]byte, 0, 2*len(bx)+2)
		for _, b := range bx {
			k = append(k, byte(b), byte(b>>8))
		}
		return string(append(k, byte(norm), byte(norm>>8)))
	}
	solved := func(bx []int) bool {
		for _, b := range bx {
			if !goal[b] {
				return false
			}
		}
		return true
	}
	slices.Sort(boxes)
	if solved(boxes) {
		return 0
	}
	for _, b := range boxes {
		occupied[b] = true
	}
	visited := map[string]bool{key(boxes, reach(py*w+px)): true}
	for _, b := range boxes {
		occupied[b] = false
	}
	frontier := []state{{boxes, py*w + px}}
	for depth := 1; len(frontier) > 0; depth++ {
		var next []state
		for _, s := range frontier {
			for _, b := range s.boxes {
				occupied[b] = true
			}
			seen := reach(s.player)
			for bi, b := range s.boxes {
				for d := sokoban.Left; d <= sokoban.Down; d++ {
					behind := step(b, d.Reverse())
					to := step(b, d)
					if behind < 0 || !seen[behind] || to < 0 || occupied[to] {
						continue
					}
					nb := slices.Clone(s.boxes)
					nb[bi] = to
					slices.Sort(nb)
					occupied[b], occupied[to] = false, true
					k := key(nb, reach(b))
					occupied[b], occupied[to] = true, false
					if visited[k] {
						continue
					}
					if solved(nb) {
						return depth
					}
					visited[k] = true
					if len(visited) > limit {
						return -2
					}
					next = append(next, state{nb, b})
				}
			}
			for _, b := range s.boxes {
				occupied[b] = false
			}
		}
		frontier = next
	}
	return -1
}
