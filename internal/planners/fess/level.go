package fess

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/sokod/sokod/sdk"
)

// Cell flags of a board. A board is one byte per cell of the level's grid,
// as in Festival, so that the features and tests below read as local
// patterns.
const (
	wall   uint8 = 1
	box    uint8 = 2
	target uint8 = 4
	// player marks every square the player can reach: the position's
	// normalised player ("cloud").
	player uint8 = 8
	// base marks, in the base search, a square some box starts on where a
	// pulled box may still leave the board.
	base     uint8 = 16
	occupied       = wall | box
)

// inf is an unreachable distance.
const inf = 0xFFFF

// grid is a board: the flags of every cell, row-major.
type grid []uint8

// level is the static analysis of one level: its grid after
// preprocessing, the numbering of its inner squares, and the tables every
// search of the level shares.
type level struct {
	// w and h are the grid's size; the level is framed by two rings of
	// wall so that patterns reach two cells past any inner square.
	w, h int
	// start is the start position: walls, targets, boxes and the player's
	// reach.
	start grid
	// inner[c] is true for the cells the player can reach when boxes are
	// ignored; idx[c] is the inner square number of cell c (row-major), or
	// -1; cell[i] is the cell of inner square i.
	inner []bool
	idx   []int32
	cell  []int32
	// d4 are the cell offsets of Festival's four directions (up, right,
	// down, left: d4[k^2] is opposite d4[k]) and d8 of the eight
	// neighbours clockwise from up.
	d4 [4]int
	d8 [8]int
	// boxes is the number of boxes; startPlayer the player's cell.
	boxes       int
	startPlayer int
	// dist[from*n+to] is the pushes a lone box needs from inner square
	// from to to, the player starting on any side of it (Festival's
	// distance_from_to); walk the same for the player walking, boxes
	// ignored.
	dist, walk []uint16
	// impossible[i] is set for the inner squares no box can use: none
	// reaches them from a start square, or none reaches a target from them.
	impossible []bool
	// targetHole marks the targets walled on three sides (repeatedly, as
	// holes fill); the base search pulls them last.
	targetHole []bool
	// pushTunnel and pullTunnel mark the tunnel cells a box should not
	// rest on (see inefficient).
	pushTunnel, pullTunnel []bool
	// Zobrist keys per cell: a box, the player's reach (by its smallest
	// cell) and a base still open.
	zBox, zPlayer, zBase []uint64
	rooms                *rooms
	// square[c] is the host's square of cell c, or -1; walled lists the
	// host squares of boxes preprocessing turned into walls.
	square []int32
	walled []int32
}

// n returns the number of inner squares.
func (lv *level) n() int { return len(lv.cell) }

// errNoPlan is what newLevel returns for a level the searches cannot take.
var errNoPlan = errors.New("level not supported")

// newLevel analyses l. ctx bounds the tables' work on very large boards;
// a board whose tables (tableBytes) would take more than maxTables bytes
// is refused with errNoPlan before they are built.
func newLevel(ctx context.Context, l *sdk.Level, maxTables int64) (*level, error) {
	lv := &level{w: l.Width + 4, h: l.Height + 4}
	g := make(grid, lv.w*lv.h)
	for i := range g {
		g[i] = wall
	}
	at := func(c int) int { return (c/l.Width+2)*lv.w + c%l.Width + 2 }
	lv.square = make([]int32, len(g))
	for i := range lv.square {
		lv.square[i] = -1
	}
	for sq, c := range l.Squares {
		g[at(c)] = 0
		lv.square[at(c)] = int32(sq)
	}
	for _, sq := range l.Goals {
		g[at(l.Squares[sq])] |= target
	}
	for _, sq := range l.Boxes {
		g[at(l.Squares[sq])] |= box
	}
	lv.startPlayer = at(l.Squares[l.Player])
	g[lv.startPlayer] |= player
	w := lv.w
	lv.d4 = [4]int{-w, 1, w, -1}
	lv.d8 = [8]int{-w, -w + 1, 1, w + 1, w, w - 1, -1, -w - 1}

	lv.wallDecorativeBoxes(g)
	for _, sq := range l.Boxes {
		if c := at(l.Squares[sq]); g[c] == wall {
			lv.walled = append(lv.walled, int32(sq))
		}
	}
	lv.closeHoles(g)
	lv.number(g)
	lv.start = g
	lv.cloud(g)
	targets := 0
	for _, f := range g {
		if f&box != 0 {
			lv.boxes++
		}
		if f&target != 0 {
			targets++
		}
	}
	if lv.boxes != targets || lv.boxes == 0 {
		return nil, fmt.Errorf("%w: %d boxes and %d targets after preprocessing", errNoPlan, lv.boxes, targets)
	}
	if t := lv.tableBytes(); t > maxTables {
		return nil, fmt.Errorf("%w: the board's tables need %d MiB, more than the %d MiB they may take", errNoPlan, t>>20, maxTables>>20)
	}
	lv.tunnels()
	lv.holes()
	if err := lv.distances(ctx); err != nil {
		return nil, err
	}
	lv.keys()
	lv.rooms = newRooms(lv)
	return lv, nil
}

// wallDecorativeBoxes turns into walls the boxes on targets that never
// move: those no pull can take off their target on an empty board, and
// then those that cannot be pushed even with every other box gone.
func (lv *level) wallDecorativeBoxes(g grid) {
	c := make(grid, len(g))
	for i, f := range g {
		c[i] = f &^ (box | player)
		if f&target != 0 {
			c[i] = box
		}
	}
	lv.clearMovable(c, 2)
	for i := range c {
		// A target no box can be pulled off is walled only under a box:
		// an empty one makes the level unsolvable, which the host's
		// analysis says.
		if c[i]&box != 0 && g[i]&box != 0 {
			g[i] = wall
		}
	}
	copy(c, g)
	lv.clearMovable(c, -1)
	for i := range c {
		if c[i]&box != 0 && g[i]&target != 0 {
			g[i] = wall
		}
	}
}

// clearMovable takes off c, over and over, every box with free cells on
// its side d and at far*d (2: a pull's, -1: a push's).
func (lv *level) clearMovable(c grid, far int) {
	for changed := true; changed; {
		changed = false
		for i := range c {
			if c[i]&box == 0 {
				continue
			}
			for _, d := range lv.d4 {
				if c[i+d]&occupied == 0 && c[i+far*d]&occupied == 0 {
					c[i] &^= box
					changed = true
				}
			}
		}
	}
}

// closeHoles walls every empty square with three walls around it, until
// none is left: no box ever has a reason to go there.
func (lv *level) closeHoles(g grid) {
	for changed := true; changed; {
		changed = false
		for i, f := range g {
			if f != 0 {
				continue
			}
			walls := 0
			for _, d := range lv.d4 {
				if j := i + d; j >= 0 && j < len(g) && g[j] == wall {
					walls++
				}
			}
			if walls >= 3 {
				g[i] = wall
				changed = true
			}
		}
	}
}

// number finds the inner squares, the cells the player reaches with the
// boxes ignored, and numbers them row-major. Boxes outside become walls.
func (lv *level) number(g grid) {
	lv.inner = make([]bool, len(g))
	lv.idx = make([]int32, len(g))
	stack := []int{lv.startPlayer}
	lv.inner[lv.startPlayer] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range lv.d4 {
			if n := c + d; !lv.inner[n] && g[n] != wall {
				lv.inner[n] = true
				stack = append(stack, n)
			}
		}
	}
	for c := range g {
		lv.idx[c] = -1
		if !lv.inner[c] {
			if g[c]&box != 0 {
				g[c] = wall
			}
			continue
		}
		lv.idx[c] = int32(len(lv.cell))
		lv.cell = append(lv.cell, int32(c))
	}
}

// cloud adds to g's player flags every square the player reaches from
// them (Festival's expand_sokoban_cloud).
func (lv *level) cloud(g grid) {
	var stack []int32
	for _, c := range lv.cell {
		if g[c]&player != 0 {
			stack = append(stack, c)
		}
	}
	lv.flood(g, stack)
}

// flood spreads the player flag from the cells of stack, which carry it,
// and returns the least cell it reaches.
func (lv *level) flood(g grid, stack []int32) int32 {
	least := int32(len(g))
	for _, c := range stack {
		least = min(least, c)
	}
	for len(stack) > 0 {
		c := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		for _, d := range lv.d4 {
			if n := c + d; g[n]&(player|occupied) == 0 {
				g[n] |= player
				least = min(least, int32(n))
				stack = append(stack, int32(n))
			}
		}
	}
	return least
}

// tunnels marks the cells of the straight tunnels of two or more cells,
// between walls along both sides, where a resting box is inefficient:
// all of them, but for the first cell of a tunnel without targets (for
// pushes) or without start squares (for pulls).
func (lv *level) tunnels() {
	g := lv.start
	lv.pushTunnel = make([]bool, len(g))
	lv.pullTunnel = make([]bool, len(g))
	isWall := func(c int) bool { return c >= 0 && c < len(g) && g[c] == wall }
	// along is the direction of the tunnel, across one of its sides.
	for _, dir := range [2][2]int{{1, lv.w}, {lv.w, 1}} {
		along, across := dir[0], dir[1]
		for c := lv.w + 1; c < len(g)-lv.w-1; c++ {
			if isWall(c-along-across) && !isWall(c-along) && isWall(c-along+across) {
				continue // the middle of a tunnel
			}
			n := 0
			for x := c; x >= 0 && x < len(g); x += along {
				if !isWall(x-across) || isWall(x) || !isWall(x+across) {
					break
				}
				n++
			}
			if n < 2 {
				continue
			}
			hasBase, hasTarget := false, false
			for k := range n {
				x := c + k*along
				hasBase = hasBase || g[x]&box != 0
				hasTarget = hasTarget || g[x]&target != 0
				lv.pushTunnel[x], lv.pullTunnel[x] = true, true
			}
			if !hasBase {
				lv.pullTunnel[c] = false
			}
			if !hasTarget {
				lv.pushTunnel[c] = false
			}
		}
	}
}

// holes marks the target holes: targets with three walls around, where
// a filled hole counts as a wall for the next.
func (lv *level) holes() {
	g := make(grid, len(lv.start))
	for i, f := range lv.start {
		g[i] = f &^ (box | player)
	}
	lv.targetHole = make([]bool, len(g))
	for changed := true; changed; {
		changed = false
		for _, c := range lv.cell {
			if g[c]&target == 0 {
				continue
			}
			walls := 0
			for _, d := range lv.d4 {
				if g[int(c)+d] == wall {
					walls++
				}
			}
			if walls == 3 {
				g[c] = wall
				lv.targetHole[c] = true
				changed = true
			}
		}
	}
}

// keys draws the Zobrist keys, from a fixed seed so that runs repeat.
func (lv *level) keys() {
	r := rand.New(rand.NewPCG(0x5eed, uint64(len(lv.cell))))
	n := len(lv.start)
	lv.zBox, lv.zPlayer, lv.zBase = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for i := range n {
		lv.zBox[i], lv.zPlayer[i], lv.zBase[i] = r.Uint64(), r.Uint64(), r.Uint64()
	}
}

// empty returns a copy of the start grid without boxes or player.
func (lv *level) empty() grid {
	g := make(grid, len(lv.start))
	for i, f := range lv.start {
		g[i] = f &^ (box | player)
	}
	return g
}

// distances fills dist, walk and impossible (Festival's set_distances).
func (lv *level) distances(ctx context.Context) error {
	n := lv.n()
	g := lv.empty()
	gr := newGraph(lv, g, false)
	lv.dist = make([]uint16, n*n)
	for from := range n {
		if from%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		gr.reset()
		gr.startAt(from)
		gr.iterate()
		row := lv.dist[from*n : from*n+n]
		for to := range n {
			row[to] = uint16(min(gr.around(to), inf))
		}
	}
	lv.impossible = make([]bool, n)
	for i := range n {
		toTarget, fromStart := false, false
		for j, c := range lv.cell {
			if lv.start[c]&target != 0 && lv.dist[i*n+j] != inf {
				toTarget = true
			}
			if lv.start[c]&box != 0 && lv.dist[j*n+i] != inf {
				fromStart = true
			}
		}
		lv.impossible[i] = !toTarget || !fromStart
	}
	lv.walk = make([]uint16, n*n)
	queue := make([]int32, 0, n)
	for from := range n {
		if from%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		row := lv.walk[from*n : from*n+n]
		for j := range row {
			row[j] = inf
		}
		row[from] = 0
		queue = append(queue[:0], int32(from))
		for h := 0; h < len(queue); h++ {
			i := queue[h]
			c := int(lv.cell[i])
			for _, d := range lv.d4 {
				if j := lv.idx[c+d]; j >= 0 && row[j] == inf {
					row[j] = row[i] + 1
					queue = append(queue, j)
				}
			}
		}
	}
	return nil
}

// tableBytes is what the level's tables of square pairs take, with the
// hotspot table: the memory a plan cannot do without.
func (lv *level) tableBytes() int64 {
	n := int64(lv.n())
	return n * n * 5
}

// distance returns dist between two cells.
func (lv *level) distance(from, to int) int32 {
	return int32(lv.dist[int(lv.idx[from])*lv.n()+int(lv.idx[to])])
}

// walking returns walk between two cells.
func (lv *level) walking(from, to int) int32 {
	return int32(lv.walk[int(lv.idx[from])*lv.n()+int(lv.idx[to])])
}
