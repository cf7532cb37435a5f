package fess

import (
	"errors"
	"strings"
)

// letters are the LURD letters of level.d4's directions.
const letters = "urdl"

// solution returns the LURD text of the path from the tree's root to
// expansion e.
func solution(lv *level, t *tree, e int32) (string, error) {
	var path []int32
	for x := e; x >= 0; x = t.exps[x].father {
		path = append(path, x)
	}
	g := make(grid, len(lv.start))
	copy(g, lv.start)
	lv.clearPlayer(g)
	pc := lv.startPlayer
	var sb strings.Builder
	w := newWalker(lv)
	for i := len(path) - 2; i >= 0; i-- {
		m := t.moveTo(path[i])
		var err error
		pc, err = w.play(g, pc, &m, &sb)
		if err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

// walker rebuilds the pushes and walks of macro moves.
type walker struct {
	lv    *level
	seen  []int32 // per vertex: where the search came from, or -2
	queue []int32
	prev  []int32 // per cell, for walks
	cells []int32
}

func newWalker(lv *level) *walker {
	return &walker{lv: lv, seen: make([]int32, 4*lv.n()), prev: make([]int32, len(lv.start))}
}

var errNoPath = errors.New("fess: a macro move has no push path")

// play writes the moves that take the box on m.from to m.to with the
// player on side m.side, the player starting on pc, and plays them on g
// (boxes only). It returns the player's cell after.
func (w *walker) play(g grid, pc int, m *move, sb *strings.Builder) (int, error) {
	lv := w.lv
	from := int(m.from)
	for i := range w.seen {
		w.seen[i] = -2
	}
	w.queue = w.queue[:0]
	reach := w.reach(g, pc)
	for k, d := range lv.d4 {
		if reach[from+d] {
			v := lv.idx[from]*4 + int32(k)
			w.seen[v] = -1
			w.queue = append(w.queue, v)
		}
	}
	g[from] &^= box
	goal := lv.idx[m.to]*4 + int32(m.side)
	found := false
	for h := 0; h < len(w.queue) && !found; h++ {
		v := w.queue[h]
		c, k := int(lv.cell[v>>2]), int(v&3)
		if v == goal {
			found = true
			break
		}
		// Shifts: the player walks around the box.
		g[c] |= box
		r := w.reach(g, c+lv.d4[k])
		g[c] &^= box
		for j, d := range lv.d4 {
			if j != k && r[c+d] {
				if nv := lv.idx[c]*4 + int32(j); w.seen[nv] == -2 {
					w.seen[nv] = v
					w.queue = append(w.queue, nv)
				}
			}
		}
		// The push away from the player.
		if n := c - lv.d4[k]; lv.inner[n] && g[n]&occupied == 0 {
			if nv := lv.idx[n]*4 + int32(k); w.seen[nv] == -2 {
				w.seen[nv] = v
				w.queue = append(w.queue, nv)
			}
		}
	}
	if w.seen[goal] == -2 {
		g[from] |= box
		return pc, errNoPath
	}
	var steps []int32
	for v := goal; v != -1; v = w.seen[v] {
		steps = append(steps, v)
	}
	// Walk to the first side, then shift or push along the path.
	first := steps[len(steps)-1]
	fc := int(lv.cell[first>>2])
	g[fc] |= box
	w.walk(g, pc, fc+lv.d4[first&3], sb)
	pc = fc + lv.d4[first&3]
	for i := len(steps) - 2; i >= 0; i-- {
		a, b := steps[i+1], steps[i]
		ca, cb := int(lv.cell[a>>2]), int(lv.cell[b>>2])
		if ca == cb {
			w.walk(g, pc, cb+lv.d4[b&3], sb)
			pc = cb + lv.d4[b&3]
			continue
		}
		k := int(a & 3)
		sb.WriteByte(letters[k^2] - 'a' + 'A')
		g[ca] &^= box
		g[cb] |= box
		pc = ca
	}
	return pc, nil
}

// reach returns the cells the player on c reaches in g (box flags only).
func (w *walker) reach(g grid, c int) []bool {
	lv := w.lv
	r := make([]bool, len(g))
	r[c] = true
	w.cells = append(w.cells[:0], int32(c))
	for h := 0; h < len(w.cells); h++ {
		x := int(w.cells[h])
		for _, d := range lv.d4 {
			if y := x + d; !r[y] && g[y]&occupied == 0 {
				r[y] = true
				w.cells = append(w.cells, int32(y))
			}
		}
	}
	return r
}

// walk writes the player's shortest walk from a to b in g.
func (w *walker) walk(g grid, a, b int, sb *strings.Builder) {
	if a == b {
		return
	}
	lv := w.lv
	for i := range w.prev {
		w.prev[i] = -1
	}
	w.prev[a] = int32(a)
	w.cells = append(w.cells[:0], int32(a))
	for h := 0; h < len(w.cells); h++ {
		x := int(w.cells[h])
		if x == b {
			break
		}
		for _, d := range lv.d4 {
			if y := x + d; w.prev[y] < 0 && g[y]&occupied == 0 {
				w.prev[y] = int32(x)
				w.cells = append(w.cells, int32(y))
			}
		}
	}
	var rev []byte
	for x := b; x != a; x = int(w.prev[x]) {
		p := int(w.prev[x])
		for k, d := range lv.d4 {
			if p+d == x {
				rev = append(rev, letters[k])
				break
			}
		}
	}
	for i := len(rev) - 1; i >= 0; i-- {
		sb.WriteByte(rev[i])
	}
}
