package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sokod/sokod/sokoban"
)

// form is a level's canonical form and where the level sits in it.
//
// Two levels are the same level when they have the same walls, goals and
// boxes and their players stand in the same region (the squares the player
// reaches without pushing): from anywhere in that region the same pushes
// solve the level. The canonical form is the board trimmed to its walls,
// goals and boxes, with the player on the region's first square in row
// order; its XSB text is the store's key.
type form struct {
	// level is the canonical level, parsed back from key.
	level *sokoban.Level
	// key is level.XSB().
	key string
	// dx and dy shift a square of the original level into the canonical
	// board: canonical x = x - dx, y = y - dy.
	dx, dy int
}

// canonical returns l's canonical form.
func canonical(l *sokoban.Level) (*form, error) {
	w, h := l.Width(), l.Height()
	cells := l.Cells()
	px, py := l.Player()
	region := reach(cells, w, h, py*w+px)
	first := -1
	for i, in := range region {
		if in {
			first = i
			break
		}
	}
	x0, y0, x1, y1 := w, h, -1, -1
	for i, c := range cells {
		if c&^sokoban.Player == 0 && i != first {
			continue
		}
		x, y := i%w, i/w
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	var b strings.Builder
	for y := y0; y <= y1; y++ {
		row := make([]byte, 0, x1-x0+1)
		for x := x0; x <= x1; x++ {
			c := cells[y*w+x] &^ sokoban.Player
			if y*w+x == first {
				c |= sokoban.Player
			}
			row = append(row, char(c))
		}
		b.WriteString(strings.TrimRight(string(row), " "))
		b.WriteByte('\n')
	}
	cl, err := sokoban.Parse(b.String())
	if err != nil {
		// A valid level's canonical form is valid: this is a bug here.
		return nil, fmt.Errorf("canonical form does not parse: %w", err)
	}
	return &form{level: cl, key: cl.XSB(), dx: x0, dy: y0}, nil
}

// char is the XSB character of c; the sokoban package keeps its own
// unexported.
func char(c sokoban.Cell) byte {
	switch {
	case c.Has(sokoban.Wall):
		return '#'
	case c.Has(sokoban.Player | sokoban.Goal):
		return '+'
	case c.Has(sokoban.Player):
		return '@'
	case c.Has(sokoban.Box | sokoban.Goal):
		return '*'
	case c.Has(sokoban.Box):
		return '$'
	case c.Has(sokoban.Goal):
		return '.'
	}
	return ' '
}

// reach marks the squares the player reaches from start without pushing.
func reach(cells []sokoban.Cell, w, h, start int) []bool {
	seen := make([]bool, len(cells))
	seen[start] = true
	queue := []int{start}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for d := range sokoban.Direction(4) {
			j, ok := step(i, d, w, h)
			if ok && !seen[j] && cells[j]&(sokoban.Wall|sokoban.Box) == 0 {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	return seen
}

// step returns the square next to i in direction d, and false off the board.
func step(i int, d sokoban.Direction, w, h int) (int, bool) {
	dx, dy := d.Delta()
	x, y := i%w+dx, i/w+dy
	if x < 0 || y < 0 || x >= w || y >= h {
		return 0, false
	}
	return y*w + x, true
}

// push is one push of a solution: the box's square before it, in the
// canonical board's coordinates, and the direction.
type push struct {
	x, y int
	dir  sokoban.Direction
}

// errNotSolved is a legal solution that leaves boxes off goals.
var errNotSolved = errors.New("the solution is legal but does not solve the level")

// pushesOf replays sol on l, whose canonical form is f, and returns its
// pushes. A solution that is illegal or leaves the level unsolved is an
// error.
func pushesOf(l *sokoban.Level, f *form, sol sokoban.Solution) ([]push, error) {
	m, err := sokoban.Replay(l, sol)
	if err != nil {
		return nil, err
	}
	if !m.Solved {
		return nil, errNotSolved
	}
	w := l.Width()
	px, py := l.Player()
	player := py*w + px
	pushes := make([]push, 0, m.Pushes)
	for _, st := range sol {
		// Replay has checked every step, so each stays on the board.
		next, _ := step(player, st.Dir, w, l.Height())
		if st.Push {
			pushes = append(pushes, push{x: next%w - f.dx, y: next/w - f.dy, dir: st.Dir})
		}
		player = next
	}
	return pushes, nil
}

// render writes pushes as a solution of l, whose canonical form is f: the
// pushes in order, each preceded by a shortest walk to it. Walks are never
// longer than those of the solution the pushes came from, so a solution
// moved from one player start to another keeps its pushes and loses no
// moves but those of the first walk.
func render(l *sokoban.Level, f *form, pushes []push) (sokoban.Solution, error) {
	w, h := l.Width(), l.Height()
	cells := l.Cells()
	px, py := l.Player()
	player := py*w + px
	cells[player] &^= sokoban.Player
	var sol sokoban.Solution
	for k, p := range pushes {
		box := (p.y+f.dy)*w + p.x + f.dx
		from, ok1 := step(box, p.dir.Reverse(), w, h)
		to, ok2 := step(box, p.dir, w, h)
		if !ok1 || !ok2 || !cells[box].Has(sokoban.Box) || cells[to]&(sokoban.Wall|sokoban.Box) != 0 {
			return nil, fmt.Errorf("push %d (%s from column %d, row %d) is not legal here", k+1, p.dir, p.x+1, p.y+1)
		}
		walk, ok := shortestWalk(cells, w, h, player, from)
		if !ok {
			return nil, fmt.Errorf("push %d: the player cannot reach it", k+1)
		}
		sol = append(sol, walk...)
		sol = append(sol, sokoban.Step{Dir: p.dir, Push: true})
		cells[box] &^= sokoban.Box
		cells[to] |= sokoban.Box
		player = box
	}
	return sol, nil
}

// shortestWalk returns a shortest walk from one square to another around
// walls and boxes; ties go to the first direction in LURD order.
func shortestWalk(cells []sokoban.Cell, w, h, from, to int) (sokoban.Solution, bool) {
	if from == to {
		return nil, true
	}
	prev := make([]int32, len(cells))
	for i := range prev {
		prev[i] = -1
	}
	prev[from] = int32(from)
	queue := []int{from}
	for len(queue) > 0 && prev[to] < 0 {
		i := queue[0]
		queue = queue[1:]
		for d := range sokoban.Direction(4) {
			j, ok := step(i, d, w, h)
			if ok && prev[j] < 0 && cells[j]&(sokoban.Wall|sokoban.Box) == 0 {
				prev[j] = int32(i)
				queue = append(queue, j)
			}
		}
	}
	if prev[to] < 0 {
		return nil, false
	}
	var walk sokoban.Solution
	for i := to; i != from; i = int(prev[i]) {
		walk = append(walk, sokoban.Step{Dir: dirBetween(int(prev[i]), i, w)})
	}
	for a, b := 0, len(walk)-1; a < b; a, b = a+1, b-1 {
		walk[a], walk[b] = walk[b], walk[a]
	}
	return walk, true
}

// dirBetween is the direction of the step from square a to its neighbour b.
func dirBetween(a, b, w int) sokoban.Direction {
	switch b - a {
	case -1:
		return sokoban.Left
	case -w:
		return sokoban.Up
	case 1:
		return sokoban.Right
	}
	return sokoban.Down
}
