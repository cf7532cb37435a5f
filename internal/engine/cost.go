package engine

import (
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// perSquareBytes bounds the memory per interior square of the board's
// tables other than the distance tables, of the analysis's scratch, and
// of a searcher's position, reachability and macro scratch.
const perSquareBytes = 400

// fixedSearchBytes bounds a searcher's memory that does not grow with the
// board: the goal-macro move cache and small slices.
const fixedSearchBytes = 3 << 20

// SolveBytes estimates, before anything is computed, the memory that
// analysing l and searching it take besides the search's table and open
// list (Budget.Memory): the board's tables, a heuristic's tables of the
// board's shape as a built-in or a plugin compiles them, the search's own
// copy of them, and its scratch. The distance tables, squares times goals,
// dominate on large boards, where they alone can exceed a memory budget;
// callers compare the estimate with the budget before analysing.
func SolveBytes(l *sokoban.Level) int64 {
	n, g := interior(l)
	dist := int64(n+1) * int64(g) * 2
	region := int64(0)
	if (n+1)*Regions*g <= board.MaxRegionDist {
		region = int64(n+1) * Regions * int64(g) * 2
	}
	evaluator := dist
	if region > 0 {
		evaluator = region
	}
	return 2*(dist+region) + evaluator + int64(n+1)*perSquareBytes + int64(l.Width()*l.Height())*8 + fixedSearchBytes
}

// interior counts the squares board.Analyze will number (the floor the player
// reaches with the boxes ignored) and the goals on them.
func interior(l *sokoban.Level) (squares, goals int) {
	w, h := l.Width(), l.Height()
	cells := l.Cells()
	px, py := l.Player()
	seen := make([]bool, w*h)
	stack := []int{py*w + px}
	seen[py*w+px] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		squares++
		if cells[c].Has(sokoban.Goal) {
			goals++
		}
		x, y := c%w, c/w
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			dx, dy := d.Delta()
			nx, ny := x+dx, y+dy
			if nx < 0 || ny < 0 || nx >= w || ny >= h {
				continue
			}
			if n := ny*w + nx; !seen[n] && !cells[n].Has(sokoban.Wall) {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return squares, goals
}
