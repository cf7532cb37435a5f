package relocation

import (
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
)

// RFS, reverse free space (Holland, section 3).
//
// The squares the reverse search parks boxes on, in order of preference.
// IADOL orders the squares of the player's region by their walking depth
// from the pullable boxes on goals; only squares some of those boxes can
// be pulled to count. Then, deepest first, three passes choose squares:
// isolated ones (all eight neighbours empty, so a box there blocks
// nothing), then those that neither freeze a box, nor cut the player's
// region, nor join two groups of walls and boxes (which closes a circuit
// the player could walk around), then those that neither freeze a box nor
// cut the region. Each chosen square gets a box in the trial position
// before the next is looked at.
//
// Simplifications: the pull access is the union over the pullable boxes,
// not taken box by box; goal squares are never chosen; external corrals
// (Holland's step 5) get no free space of their own, as the reverse search
// here always works in the player's region.

// freeSpace is the scratch space of RFS over one board.
type freeSpace struct {
	b     *board.Board
	g     *macro.Gen
	pg    *pullGen
	st    *static
	q     *macro.Pos // the trial position
	depth []int32
	inPA  []bool
	uf    []int32 // union-find over cells: walls and boxes
	fmark []bool
}

func newFreeSpace(b *board.Board, g *macro.Gen, pg *pullGen, st *static) *freeSpace {
	return &freeSpace{b: b, g: g, pg: pg, st: st, q: macro.NewPos(b), depth: make([]int32, b.Squares+1),
		inPA: make([]bool, b.Squares+1), uf: make([]int32, b.Width*b.Height), fmark: make([]bool, b.Squares+1)}
}

// find returns the root of cell c in the union-find.
func (f *freeSpace) find(c int32) int32 {
	for f.uf[c] != c {
		f.uf[c] = f.uf[f.uf[c]]
		c = f.uf[c]
	}
	return c
}

// neighbours8 returns the cells around square s's cell.
func (f *freeSpace) neighbours8(s uint16) [8]int32 {
	w := int32(f.b.Width)
	c := f.b.Cell[s]
	return [8]int32{c - w - 1, c - w, c - w + 1, c - 1, c + 1, c + w - 1, c + w, c + w + 1}
}

// occupiedCell reports whether cell c holds a wall (or is outside) or a
// box of the trial position.
func (f *freeSpace) occupiedCell(c int32) bool {
	s := f.b.SquareOf[c]
	return s < 0 || f.q.BoxAt[s] != -1
}

// compute returns the free-space squares of reverse position pos, best
// first.
func (f *freeSpace) compute(pos *macro.Pos) []uint16 {
	b, g := f.b, f.g
	n := b.Squares
	// The trial position still holds the free-space boxes of the last
	// call (add marks squares only, which Set does not clear): without
	// this, every root after the first saw the first root's free space as
	// boxes, and RPR from it pulled little or nothing.
	for s := range n {
		f.q.BoxAt[s] = -1
	}
	f.q.Boxes = f.q.Boxes[:0]
	f.q.Set(pos.Boxes, pos.Player)
	q := f.q
	// DL: the pullable boxes on goals, and their pull access.
	clear(f.inPA)
	var dl []uint16
	for i, x := range q.Boxes {
		if b.GoalIndex[x] < 0 {
			continue
		}
		moves := f.pg.GenerateBox(q, i)
		if len(moves) == 0 {
			continue
		}
		dl = append(dl, x)
		for _, m := range moves {
			f.inPA[m.To] = true
		}
	}
	if len(dl) == 0 {
		return nil
	}
	// IADOL: depth from the DL boxes through the player's region, dead
	// squares and the reverse exclusion zone left out.
	g.Flood(q, q.Player)
	for i := range f.depth {
		f.depth[i] = -1
	}
	queue := slices.Clone(dl)
	for _, x := range dl {
		f.depth[x] = 0
	}
	for h := 0; h < len(queue); h++ {
		s := queue[h]
		for d := range 4 {
			t := b.Nbr[int(s)*4+d]
			if t == uint16(n) || f.depth[t] >= 0 || !g.Reached(t) || b.Dead[t] || !f.squareInPRZ(t) {
				continue
			}
			f.depth[t] = f.depth[s] + 1
			queue = append(queue, t)
		}
	}
	// TL: deepest first, in the pull access, not goals.
	var tl []uint16
	for _, s := range queue[len(dl):] {
		if f.inPA[s] && b.GoalIndex[s] < 0 {
			tl = append(tl, s)
		}
	}
	slices.SortStableFunc(tl, func(x, y uint16) int { return int(f.depth[y] - f.depth[x]) })
	regions := g.Regions(q)
	f.initCircuits()
	var bl, rest []uint16
	// Step 2: isolated squares.
	for _, s := range tl {
		if f.isolated(s) {
			f.add(s)
			bl = append(bl, s)
		} else {
			rest = append(rest, s)
		}
	}
	// Steps 3 and 4: squares that freeze nothing and cut no region,
	// first those that close no circuit.
	for pass := range 2 {
		tl, rest = rest, nil
		for _, s := range tl {
			if q.BoxAt[s] != -1 {
				continue
			}
			q.BoxAt[s] = int16(len(q.Boxes))
			bad := f.frozen(s) || g.Regions(q) > regions
			q.BoxAt[s] = -1
			if bad {
				continue
			}
			if pass == 0 && f.closesCircuit(s) {
				rest = append(rest, s)
				continue
			}
			f.add(s)
			bl = append(bl, s)
		}
	}
	return bl
}

// squareInPRZ reports whether a start box can reach square s with the
// player on some side.
func (f *freeSpace) squareInPRZ(s uint16) bool {
	for l := range labels {
		if f.st.prz[int(s)*labels+l] {
			return true
		}
	}
	return false
}

// isolated reports whether the eight squares around s are floor without
// boxes.
func (f *freeSpace) isolated(s uint16) bool {
	for _, c := range f.neighbours8(s) {
		if f.occupiedCell(c) {
			return false
		}
	}
	return true
}

// initCircuits builds the union-find of the occupied cells of the trial
// position, eight-connected.
func (f *freeSpace) initCircuits() {
	w, h := f.b.Width, f.b.Height
	for c := range f.uf {
		f.uf[c] = int32(c)
	}
	for c := range w * h {
		if !f.occupiedCell(int32(c)) {
			continue
		}
		x, y := c%w, c/w
		for _, dd := range [4][2]int{{1, 0}, {-1, 1}, {0, 1}, {1, 1}} {
			nx, ny := x+dd[0], y+dd[1]
			if nx < 0 || nx >= w || ny >= h {
				continue
			}
			if nc := int32(ny*w + nx); f.occupiedCell(nc) {
				f.uf[f.find(int32(c))] = f.find(nc)
			}
		}
	}
}

// closesCircuit reports whether a box on s would join two groups of
// occupied cells.
func (f *freeSpace) closesCircuit(s uint16) bool {
	root := int32(-1)
	for _, c := range f.neighbours8(s) {
		if !f.occupiedCell(c) {
			continue
		}
		r := f.find(c)
		if root >= 0 && r != root {
			return true
		}
		root = r
	}
	return false
}

// add puts a box of the free space on s in the trial position.
func (f *freeSpace) add(s uint16) {
	f.q.BoxAt[s] = int16(len(f.q.Boxes))
	c := f.b.Cell[s]
	for _, nc := range f.neighbours8(s) {
		if f.occupiedCell(nc) {
			f.uf[f.find(c)] = f.find(nc)
		}
	}
}

// frozen reports whether the box on s in the trial position is frozen.
func (f *freeSpace) frozen(s uint16) bool {
	clear(f.fmark)
	return frozenAt(f.b, f.q, s, f.fmark, nil)
}

// frozenAt reports whether the box on sq of pos can never be pushed again:
// on each axis a wall or a frozen box blocks one side, boxes under
// examination counting as walls. mark holds those boxes (the caller
// clears it before the first call); a failed hypothesis is rolled back.
// stack is scratch space; it returns the marked boxes' squares appended
// to it.
func frozenAt(b *board.Board, pos *macro.Pos, sq uint16, mark []bool, stack []uint16) bool {
	_, ok := frozenRec(b, pos, sq, mark, stack)
	return ok
}

func frozenRec(b *board.Board, pos *macro.Pos, sq uint16, mark []bool, stack []uint16) ([]uint16, bool) {
	wall := uint16(b.Squares)
	base := len(stack)
	mark[sq] = true
	stack = append(stack, sq)
	nb := b.Nbr[int(sq)*4 : int(sq)*4+4]
	axis := func(x, y uint16) bool {
		if x == wall || y == wall || mark[x] || mark[y] {
			return true
		}
		for _, t := range [2]uint16{x, y} {
			if pos.BoxAt[t] != -1 {
				var ok bool
				if stack, ok = frozenRec(b, pos, t, mark, stack); ok {
					return true
				}
			}
		}
		return false
	}
	if axis(nb[0], nb[2]) && axis(nb[1], nb[3]) {
		return stack, true
	}
	for _, x := range stack[base:] {
		mark[x] = false
	}
	return stack[:base], false
}
