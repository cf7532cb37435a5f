package fess

// The local deadlock tests of move generation, after Festival's
// deadlock.cpp: a box pushed into a freeze, a 2x2 block or a 3x3 ring, a
// small pattern, or onto a square no solution needs it on. They read
// cells by exact value where Festival does: a wall cell is wall and
// nothing else, an empty unreachable cell is 0.

// deadlockInDirection reports whether pushing the box on cell c in
// direction k freezes it at once (Festival's deadlock_in_direction).
func (lv *level) deadlockInDirection(g grid, c, k int) bool {
	d, side := lv.d4[k], lv.d4[(k+1)&3]
	n := c + d
	if !lv.inner[n] || lv.impossible[lv.idx[n]] {
		return true
	}
	// Two walls: ahead and on a side.
	if g[n]&target == 0 && g[n+d] == wall && (g[n+side] == wall || g[n-side] == wall) {
		return true
	}
	// A box ahead with walls that pin the pair.
	if g[n+d]&box != 0 {
		w4 := g[n+side] == wall
		w3 := g[n-side] == wall
		w2 := g[n+d+side] == wall
		w1 := g[n+d-side] == wall
		if (w1 && w4) || (w2 && w3) {
			if g[n]&target == 0 || g[n+d]&target == 0 {
				return true
			}
		}
	}
	// The two 2x2 blocks the pushed box joins ahead.
	g[c] &^= box
	g[n] |= box
	a, b := n+d, n+d
	a += side
	b -= side
	res := lv.block2x2(g, n, n+d, a) || lv.block2x2(g, n, n+d, b)
	g[n] &^= box
	g[c] |= box
	return res
}

// block2x2 reports whether the 2x2 square spanned by cells p, q (the
// pushed box and the cell ahead) and r (ahead on a side) is full and
// holds a box off target.
func (lv *level) block2x2(g grid, p, q, r int) bool {
	s := p + (r - q)
	cells := [4]int{p, q, r, s}
	for _, c := range cells {
		if g[c]&occupied == 0 {
			return false
		}
	}
	for _, c := range cells {
		if g[c]&box != 0 && g[c]&target == 0 {
			return true
		}
	}
	return false
}

// mark2x2 sets in out the cells where a box would complete a 2x2 block
// that could hold a box off target, or would stand between two diagonal
// walls (Festival's mark_deadlock_2x2). g's player flags are ignored.
func (lv *level) mark2x2(g grid, out []bool) {
	clear(out)
	w := lv.w
	val := func(c int) uint8 { return g[c] &^ player }
	for c := 0; c+w+1 < len(g); c++ {
		sq := [4]int{c, c + 1, c + w, c + w + 1}
		sum, stuck := 0, 0
		for _, x := range sq {
			v := val(x)
			if v&occupied != 0 {
				sum++
			}
			if v != wall && v&target == 0 {
				stuck++
			}
		}
		if sum == 3 && stuck > 0 {
			for _, x := range sq {
				out[x] = true
			}
		}
		if val(c) == wall && val(c+w+1) == wall {
			if val(c+1) == 0 {
				out[c+1] = true
			}
			if val(c+w) == 0 {
				out[c+w] = true
			}
		}
		if val(c+1) == wall && val(c+w) == wall {
			if val(c) == 0 {
				out[c] = true
			}
			if val(c+w+1) == 0 {
				out[c+w+1] = true
			}
		}
	}
}

// pushable reports whether the box on c has free cells on both sides
// along some axis.
func (lv *level) pushable(g grid, c int) bool {
	w := lv.w
	return g[c-w]&occupied == 0 && g[c+w]&occupied == 0 || g[c-1]&occupied == 0 && g[c+1]&occupied == 0
}

// freeze reports whether the box on c can never move again while a box
// off target can't either (Festival's is_freeze_deadlock). scratch is a
// grid-sized buffer.
func (lv *level) freeze(g grid, c int, scratch grid) bool {
	if lv.pushable(g, c) {
		return false
	}
	copy(scratch, g)
	for changed := true; changed; {
		changed = false
		for _, x := range lv.cell {
			if scratch[x]&box != 0 && lv.pushable(scratch, int(x)) {
				scratch[x] &^= box
				changed = true
			}
		}
	}
	for _, x := range lv.cell {
		if scratch[x]&box != 0 && scratch[x]&target == 0 {
			return true
		}
	}
	return false
}

// touchesUnreachable reports whether a neighbour of c, of eight, is a
// free cell the player cannot reach.
func (lv *level) touchesUnreachable(g grid, c int) bool {
	for _, d := range lv.d8 {
		if g[c+d]&(occupied|player) == 0 {
			return true
		}
	}
	return false
}

// ring3x3 reports whether the box on c closes a free, unreachable cell off
// target in a ring of boxes and walls that cannot open (Festival's
// is_3x3_deadlock).
func (lv *level) ring3x3(g grid, c int) bool {
	if !lv.touchesUnreachable(g, c) {
		return false
	}
	w := lv.w
	for _, y := range [3]int{c - w, c, c + w} {
		for _, x := range [3]int{y - 1, y, y + 1} {
			if !lv.inner[x] || g[x]&occupied != 0 || g[x]&target != 0 {
				continue
			}
			all := true
			offTarget := false
			for _, d := range lv.d4 {
				v := g[x+d]
				if v&occupied == 0 {
					all = false
					break
				}
				if v&box != 0 && v&target == 0 {
					offTarget = true
				}
			}
			if !all || !offTarget {
				continue
			}
			if g[x-w-1]&occupied != 0 && g[x+w+1]&occupied != 0 {
				return true
			}
			if g[x-w+1]&occupied != 0 && g[x+w-1]&occupied != 0 {
				return true
			}
			for i := 0; i < 8; i += 2 {
				if g[x+lv.d8[i]] != wall {
					continue
				}
				v2, v3 := g[x+lv.d8[(i+3)&7]], g[x+lv.d8[(i+5)&7]]
				if v2&occupied == 0 || v3&occupied == 0 {
					continue
				}
				if v2 == wall || v3 == wall {
					return true
				}
			}
		}
	}
	return false
}

// inefficient reports whether a box that a move leaves on cell c stands
// where no solution needs it to stop: in a tunnel, or in a dead end the
// player could not have come from (Festival's is_inefficient_position).
// planned marks the cells the plan uses, which are always allowed; it may
// be nil.
func (lv *level) inefficient(g grid, c int, pull bool, planned []bool) bool {
	if !pull {
		if planned != nil && planned[c] {
			return false
		}
		if g[c]&target != 0 {
			return false
		}
		if lv.pushTunnel[c] {
			return true
		}
	} else {
		if lv.start[c]&box != 0 {
			return false
		}
		if lv.pullTunnel[c] {
			return true
		}
	}
	var val [8]uint8
	for i, d := range lv.d8 {
		val[i] = g[c+d]
	}
	at := func(j int) uint8 { return val[j&7] }
	if pull {
		for j := 0; j < 8; j += 2 {
			if at(j)&occupied == 0 && at(j+1) == wall && at(j+3) == wall && at(j+4) == wall && g[c+2*lv.d8[j]] == wall {
				return true
			}
		}
		for j := 0; j < 8; j += 2 {
			if at(j)&occupied == 0 && at(j+4) == wall && at(j+5) == wall && at(j+7) == wall && g[c+2*lv.d8[j]] == wall {
				return true
			}
		}
		return false
	}
	for j := 0; j < 8; j += 2 {
		if at(j+2) == wall && at(j+3) == wall && at(j+5) == wall && at(j+6) != wall && at(j+6)&player == 0 {
			return true
		}
		if at(j+3) == wall && at(j+5) == wall && at(j+6) == wall && at(j+2) != wall && at(j+2)&player == 0 {
			return true
		}
		if at(j+2) == wall && at(j+3) == wall && at(j+5) == wall && at(j+6) != wall && at(j)&player != 0 {
			return true
		}
		if at(j+3) == wall && at(j+5) == wall && at(j+6) == wall && at(j+2) != wall && at(j)&player != 0 {
			return true
		}
		if at(j+3) == wall && at(j+5) == wall && at(j+2)&box != 0 && at(j+6)&player == 0 {
			return true
		}
		if at(j+3) == wall && at(j+5) == wall && at(j+6)&box != 0 && at(j+2)&player == 0 {
			return true
		}
	}
	return false
}

// hasPullContinuation reports whether a position of the backward search
// can go on: it is the start, or the player can pull some box (Festival's
// has_pull_continuation).
func (lv *level) hasPullContinuation(g grid) bool {
	if g[lv.startPlayer]&player != 0 && lv.inPlacePull(g) {
		return true
	}
	for _, c := range lv.cell {
		if g[c]&box == 0 {
			continue
		}
		for _, d := range lv.d4 {
			p := int(c) + d
			if g[p]&player != 0 && g[p+d]&occupied == 0 {
				return true
			}
		}
	}
	return false
}

// baseMatched reports whether every open base of bases (a grid holding
// them) can still receive some box of g (Festival's
// verify_simple_base_matching).
func (lv *level) baseMatched(g, bases grid) bool {
	n := lv.n()
	for i, c := range lv.cell {
		if bases[c]&base == 0 {
			continue
		}
		ok := false
		for j, x := range lv.cell {
			if g[x]&box != 0 && lv.dist[i*n+j] != inf {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// pattern is a small deadlock pattern: cells of exact value, any where
// any is set.
type pattern struct {
	h, w int
	cell [5][5]uint8
	any  [5][5]bool
	// by, bx is the last box cell of the pattern, which a match must hold.
	by, bx int
	// Derived from cell and any (see derive): exact lists the cells of
	// exact value, boxes first as the rarest; at[0] the cells a box off
	// target may stand on, at[1] those a box on a target may.
	exact  [25]patternCell
	nExact int
	at     [2][25][2]int8
	nAt    [2]int
}

// patternCell is a cell of exact value v at row i, column j.
type patternCell struct {
	i, j int8
	v    uint8
}

// derive sets p's lists from its cells.
func (p *pattern) derive() {
	p.nExact, p.nAt = 0, [2]int{}
	for _, first := range []bool{true, false} {
		for i := range p.h {
			for j := range p.w {
				if !p.any[i][j] && (p.cell[i][j] == box) == first {
					p.exact[p.nExact] = patternCell{int8(i), int8(j), p.cell[i][j]}
					p.nExact++
				}
			}
		}
	}
	for k, v := range []uint8{box, box | target} {
		for i := range p.h {
			for j := range p.w {
				if p.any[i][j] || p.cell[i][j] == v {
					p.at[k][p.nAt[k]] = [2]int8{int8(i), int8(j)}
					p.nAt[k]++
				}
			}
		}
	}
}

// The patterns' text, after Festival's deadlock_patterns_data: '#' wall,
// '$' box off target, '@' the player, ' ' an empty unreachable cell, '?'
// anything.
var pushPatternText = []string{
	"#$?|# $|# $|?##",
	"?$$?|$  #|$##?",
	"?$$?|$  #|###?",
	"##?|$ #|$ #|$$?",
	"?#??|# $?|#  $|?###",
	"?#??|# $?|#  $|?##$",
	"####|$  $|?$#?",
	"?#$#|#  $|#  $|?###",
	"?#?|$ $|# #|$$?",
	"?#??|# $#|#  $|?##?",
	"#$$?|# $?|#  #|#$$?",
	"?$##|#  $|?$$#",
	"#$$?|#  #|#$$?",
	"$##?|$  #|$ $#|?$$?",
	"#$?|# $|# $|#$?",
	"?#?|# $|# $|?#?",
}

var pullPatternText = []string{
	"?##?|#@@#|?$$?",
	"?#??|#@$?|#@@$|?##?",
	"?#??|#@$?|#@@$|?#$?",
	"?##?|#@@$|#@$?|?#$?",
	"?##?|#@@$|#@@$|?##?",
	"?$$?|$@@$|####",
	"?$#?|#@@$|?##?",
	"?$$?|#@@$|?##?",
	"?$#?|#@@$|#@@#|?##?",
}

// compilePatterns returns every rotation and reflection of the patterns
// in text, each once.
func compilePatterns(text []string) []pattern {
	var out []pattern
	for _, t := range text {
		var p pattern
		rows := splitRows(t)
		p.h, p.w = len(rows), len(rows[0])
		for i, r := range rows {
			for j := range r {
				switch r[j] {
				case '#':
					p.cell[i][j] = wall
				case '$':
					p.cell[i][j] = box
				case '@':
					p.cell[i][j] = player
				case '?':
					p.any[i][j] = true
				}
			}
		}
		for range 2 {
			for range 4 {
				out = addPattern(out, p)
				p = rotate(p)
			}
			p = flip(p)
		}
	}
	return out
}

func splitRows(t string) []string {
	var rows []string
	start := 0
	for i := 0; i <= len(t); i++ {
		if i == len(t) || t[i] == '|' {
			rows = append(rows, t[start:i])
			start = i + 1
		}
	}
	return rows
}

func addPattern(ps []pattern, p pattern) []pattern {
	// The last box cell, bottom-up and right to left.
	for i := p.h - 1; i >= 0; i-- {
		for j := p.w - 1; j >= 0; j-- {
			if !p.any[i][j] && p.cell[i][j]&box != 0 {
				p.by, p.bx = i, j
				goto found
			}
		}
	}
found:
	p.derive()
	for _, q := range ps {
		if q == p {
			return ps
		}
	}
	return append(ps, p)
}

func rotate(p pattern) pattern {
	q := pattern{h: p.w, w: p.h}
	for i := range p.h {
		for j := range p.w {
			q.cell[j][p.h-1-i] = p.cell[i][j]
			q.any[j][p.h-1-i] = p.any[i][j]
		}
	}
	return q
}

func flip(p pattern) pattern {
	q := pattern{h: p.h, w: p.w}
	for i := range p.h {
		for j := range p.w {
			q.cell[i][p.w-1-j] = p.cell[i][j]
			q.any[i][p.w-1-j] = p.any[i][j]
		}
	}
	return q
}

// The compiled patterns: immutable tables, built once.
var (
	pushPatterns = compilePatterns(pushPatternText)
	pullPatterns = compilePatterns(pullPatternText)
)

// matchesPattern reports whether a pattern holds around the box on c
// (Festival's check_all_patterns).
func (lv *level) matchesPattern(g grid, c int, pull bool) bool {
	if !lv.touchesUnreachable(g, c) {
		return false
	}
	ps := pushPatterns
	if pull {
		reach := 0
		for _, x := range lv.cell {
			if g[x]&player != 0 {
				reach++
			}
		}
		if reach > 4 {
			return false // every pull pattern is at most 4 cells
		}
		// Shut in with the start square is no deadlock backwards.
		if g[lv.startPlayer]&player != 0 {
			return false
		}
		ps = pullPatterns
	}
	by, bx := c/lv.w, c%lv.w
	for i := range ps {
		if lv.patternNear(g, &ps[i], by, bx) {
			return true
		}
	}
	return false
}

// patternNear reports whether p matches g at an origin whose window
// holds the box at row by, column bx on a cell it may stand on.
func (lv *level) patternNear(g grid, p *pattern, by, bx int) bool {
	k := 0
	if g[by*lv.w+bx]&target != 0 {
		k = 1
	}
	for _, at := range p.at[k][:p.nAt[k]] {
		y, x := by-int(at[0]), bx-int(at[1])
		if y < 0 || x < 0 || y+p.by >= lv.h || x+p.bx >= lv.w || g[(y+p.by)*lv.w+x+p.bx]&box == 0 {
			continue
		}
		if lv.patternAt(g, p, y, x) {
			return true
		}
	}
	return false
}

func (lv *level) patternAt(g grid, p *pattern, y, x int) bool {
	for _, c := range p.exact[:p.nExact] {
		i, j := y+int(c.i), x+int(c.j)
		if i >= lv.h || j >= lv.w || g[i*lv.w+j] != c.v {
			return false
		}
	}
	return true
}
