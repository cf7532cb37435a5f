package board

import (
	"context"
	"fmt"

	"github.com/sokod/sokod/sokoban"
)

// Inf is the distance and cost meaning "unreachable".
const Inf = 0xFFFF

// MaxSquares is the largest number of interior squares a board may have. It
// covers every board the sokoban package accepts (at most 128x128); square
// numbers, including the wall sentinel, fit in a uint16.
const MaxSquares = sokoban.MaxWidth * sokoban.MaxHeight

// Board is the analysis of one level, computed once by Analyze and read-only
// afterwards; several searches may share it.
//
// Squares are the interior floor squares (those the player can reach when the
// boxes are ignored), numbered 0..Squares-1 in row-major order, so the
// smallest number of a region is its top-left square. The number Squares
// itself is the wall sentinel: every table indexed by square has an entry for
// it, and the neighbour of a square across a wall is the sentinel.
type Board struct {
	// Level is the analysed level.
	Level *sokoban.Level
	// Width and Height are the board's size in cells.
	Width, Height int
	// Squares is the number of interior squares; it is also the wall
	// sentinel square number.
	Squares int
	// Cell maps a square to its cell index y*Width+x.
	Cell []int32
	// SquareOf maps a cell index to its square, or -1 for walls and outside
	// cells.
	SquareOf []int32
	// Nbr holds the neighbour of each square in each direction at
	// Nbr[sq*4+dir], with dir in sokoban's LURD order; the sentinel (Squares)
	// stands for a wall. The sentinel's own neighbours are the sentinel.
	Nbr []uint16
	// Goals lists the goal squares; a goal's number is its position here.
	Goals []uint16
	// GoalIndex maps a square to its goal number, or -1.
	GoalIndex []int16
	// Dist is the push distance of a lone box from a square to a goal,
	// Dist[sq*len(Goals)+goal], or Inf. It is computed by reverse pulls that
	// track which side of the box the player can reach, and is the minimum
	// over the player's possible sides, so it never overestimates.
	Dist []uint16
	// RegionDist is the same distance when the player is known to be in a
	// given region of the board around the box:
	// RegionDist[(sq*Regions+region)*len(Goals)+goal], region as Region
	// returns it, or Inf. Never below Dist. Nil on boards where it would
	// exceed MaxRegionDist entries.
	RegionDist []uint16
	// Dead marks squares from which no goal can be reached by pushes, even
	// on an otherwise empty board. The sentinel is dead.
	Dead []bool
	// StartBoxes are the boxes' starting squares, in row-major order.
	StartBoxes []uint16
	// StartPlayer is the player's starting square.
	StartPlayer uint16
	// ZBox and ZPlayer are the Zobrist keys of a box and of the (normalised)
	// player on each square.
	ZBox, ZPlayer []uint64
	// Impossible is non-empty when the analysis alone proves the level
	// unsolvable (a box walled in off a goal, say); it says why.
	Impossible string

	// SideRegion[sq*4+d] is the region label (see Region) of the neighbour
	// of sq in direction d when a lone box stands on sq: sides with equal
	// labels are connected for the player. 0xFF for a wall side.
	SideRegion []uint8
	// Slide[sq] has bit d set when sq is a tunnel square for a push in
	// direction d (see TunnelSquare).
	Slide []uint8
	// Areas are the goal areas that have a packing order (see GoalArea).
	Areas []GoalArea
	// InArea[sq] is the index in Areas of the area square sq belongs to,
	// EntranceArea[sq] that of the area it belongs to or is an entrance
	// of; -1 for none.
	InArea, EntranceArea []int16

	// The depth-first search behind the labels: disc is each square's
	// discovery time; [regLo, regHi) at sq*4+e is the discovery interval of
	// the subtree of sq's child in direction e (empty when that neighbour is
	// no child), regLbl its label.
	disc         []int32
	regLo, regHi []int32
	regLbl       []uint8
}

// MaxRegionDist bounds the size of Board.RegionDist (32 MiB); no board of
// the benchmark collections comes near it.
const MaxRegionDist = 1 << 24

// Bytes estimates the memory the board's tables hold.
func (b *Board) Bytes() int64 {
	n := int64(b.Squares + 1)
	return int64(len(b.Dist)+len(b.RegionDist)+len(b.Nbr))*2 + int64(len(b.SquareOf)+len(b.Cell))*4 +
		n*(2+1+16) + int64(len(b.SideRegion)+len(b.Slide)+len(b.regLbl)) + int64(len(b.disc)+len(b.regLo)+len(b.regHi))*4 +
		int64(len(b.InArea)+len(b.EntranceArea))*2
}

// Regions is the number of region labels around a square: 0-3 for regions
// cut off by a box on the square (named by a direction they touch), 4 for
// the rest.
const Regions = 5

// Region returns the label of the region of the board that holds square p
// when a lone box stands on square q (p != q). O(1): p lies in the subtree
// of one of q's depth-first children, or else on the side of q's parent.
func (b *Board) Region(q, p uint16) uint8 {
	d := b.disc[p]
	i := int(q) * 4
	for e := 0; e < 4; e++ {
		if d >= b.regLo[i+e] && d < b.regHi[i+e] {
			return b.regLbl[i+e]
		}
	}
	return 4
}

// Analyze computes the per-level tables. It fails only for levels a Board
// cannot represent; an unsolvable level is analysed and marked Impossible.
func Analyze(l *sokoban.Level) (*Board, error) {
	return AnalyzeContext(context.Background(), l)
}

// AnalyzeContext is Analyze that gives up when ctx ends, returning an error
// that wraps ctx's: the distance tables take time in proportion to squares
// times goals, seconds on the largest boards.
func AnalyzeContext(ctx context.Context, l *sokoban.Level) (*Board, error) {
	if l == nil {
		return nil, fmt.Errorf("board: nil level")
	}
	b := &Board{Level: l, Width: l.Width(), Height: l.Height()}
	if err := b.numberSquares(); err != nil {
		return nil, err
	}
	b.computeNeighbours()
	b.placeBoxesAndGoals()
	b.computeSides()
	if err := b.computeDistances(ctx); err != nil {
		return nil, err
	}
	b.computeDead()
	b.computeSlide()
	if err := b.computeGoalAreas(ctx); err != nil {
		return nil, err
	}
	b.checkStartBoxes()
	b.computeZobrist()
	return b, nil
}

// numberSquares numbers the interior, the cells the player reaches from
// the start when boxes are ignored, in row-major order (Cell, SquareOf,
// Squares).
func (b *Board) numberSquares() error {
	l, w, h := b.Level, b.Width, b.Height
	cells := l.Cells()
	px, py := l.Player()
	start := py*w + px
	b.SquareOf = make([]int32, w*h)
	inside := make([]bool, w*h)
	stack := []int{start}
	inside[start] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := c%w, c/w
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			dx, dy := d.Delta()
			nx, ny := x+dx, y+dy
			if nx < 0 || ny < 0 || nx >= w || ny >= h {
				return fmt.Errorf("board: the player can walk off the board at column %d, row %d", x+1, y+1)
			}
			n := ny*w + nx
			if inside[n] || cells[n].Has(sokoban.Wall) {
				continue
			}
			inside[n] = true
			stack = append(stack, n)
		}
	}
	n := 0
	for c := range cells {
		if inside[c] {
			b.SquareOf[c] = int32(n)
			b.Cell = append(b.Cell, int32(c))
			n++
		} else {
			b.SquareOf[c] = -1
		}
	}
	if n >= MaxSquares {
		return fmt.Errorf("board: %d interior squares, more than %d", n, MaxSquares-1)
	}
	b.Squares = n
	return nil
}

// computeNeighbours fills Nbr, the wall sentinel standing for walls.
func (b *Board) computeNeighbours() {
	n, w := b.Squares, b.Width
	wall := uint16(n)
	b.Nbr = make([]uint16, (n+1)*4)
	for sq := 0; sq < n; sq++ {
		c := int(b.Cell[sq])
		x, y := c%w, c/w
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			dx, dy := d.Delta()
			nc := (y+dy)*w + x + dx
			if s := b.SquareOf[nc]; s >= 0 {
				b.Nbr[sq*4+int(d)] = uint16(s)
			} else {
				b.Nbr[sq*4+int(d)] = wall
			}
		}
	}
	for d := 0; d < 4; d++ {
		b.Nbr[n*4+d] = wall
	}
}

// placeBoxesAndGoals fills Goals, GoalIndex, StartBoxes and StartPlayer. A
// box outside the interior can never move: on a goal it is part of the
// wall, elsewhere the level is unsolvable (Impossible). A goal outside the
// interior without a box can never be filled.
func (b *Board) placeBoxesAndGoals() {
	w := b.Width
	b.GoalIndex = make([]int16, b.Squares+1)
	for i := range b.GoalIndex {
		b.GoalIndex[i] = -1
	}
	for c, cell := range b.Level.Cells() {
		s := b.SquareOf[c]
		switch {
		case s < 0 && cell.Has(sokoban.Box) && !cell.Has(sokoban.Goal):
			b.impossible("the box at column %d, row %d can never be reached", c%w+1, c/w+1)
		case s < 0 && cell.Has(sokoban.Goal) && !cell.Has(sokoban.Box):
			b.impossible("the goal at column %d, row %d can never be reached", c%w+1, c/w+1)
		case s >= 0 && cell.Has(sokoban.Goal):
			b.GoalIndex[s] = int16(len(b.Goals))
			b.Goals = append(b.Goals, uint16(s))
		}
		if s >= 0 && cell.Has(sokoban.Box) {
			b.StartBoxes = append(b.StartBoxes, uint16(s))
		}
	}
	px, py := b.Level.Player()
	b.StartPlayer = uint16(b.SquareOf[py*w+px])
	if len(b.StartBoxes) != len(b.Goals) {
		b.impossible("%d movable boxes but %d goals", len(b.StartBoxes), len(b.Goals))
	}
}

// impossible records the first reason the level cannot be solved.
func (b *Board) impossible(format string, args ...any) {
	if b.Impossible == "" {
		b.Impossible = fmt.Sprintf(format, args...)
	}
}

// computeDead marks the squares from which a lone box reaches no goal, and
// the wall sentinel.
func (b *Board) computeDead() {
	n, g := b.Squares, len(b.Goals)
	b.Dead = make([]bool, n+1)
	for sq := 0; sq < n; sq++ {
		dead := true
		for j := 0; j < g; j++ {
			if b.Dist[sq*g+j] != Inf {
				dead = false
				break
			}
		}
		b.Dead[sq] = dead
	}
	b.Dead[n] = true
}

// checkStartBoxes makes a level with a box starting on a dead square
// Impossible.
func (b *Board) checkStartBoxes() {
	for _, s := range b.StartBoxes {
		if b.Dead[s] {
			x, y := b.XY(s)
			b.impossible("the box at column %d, row %d can never reach a goal", x+1, y+1)
			return
		}
	}
}

// Wall returns the wall sentinel square number.
func (b *Board) Wall() uint16 { return uint16(b.Squares) }

// NearestGoal returns, per square, a lone box's push distance from it to
// its nearest goal (Dist's minimum over the goals): Inf where none is
// reachable, the wall sentinel included. The slice is new on each call.
func (b *Board) NearestGoal() []uint16 {
	n := len(b.Goals)
	near := make([]uint16, b.Squares+1)
	for sq := range near {
		near[sq] = Inf
	}
	for sq := 0; sq < b.Squares; sq++ {
		for _, d := range b.Dist[sq*n : sq*n+n] {
			near[sq] = min(near[sq], d)
		}
	}
	return near
}

// XY returns the column and row of a square.
func (b *Board) XY(sq uint16) (x, y int) {
	c := int(b.Cell[sq])
	return c % b.Width, c / b.Width
}

// Neighbour returns the square next to sq in direction d, or the sentinel.
func (b *Board) Neighbour(sq uint16, d sokoban.Direction) uint16 { return b.Nbr[int(sq)*4+int(d)] }

// computeSides finds, for every square, which of its neighbours stay
// connected for the player when a lone box stands on it. It uses one
// iterative depth-first search and articulation-point low links: removing
// square s separates the subtree of a DFS child c from the rest exactly when
// low[c] >= disc[s]. Linear in the number of squares.
func (b *Board) computeSides() {
	n := b.Squares
	wall := uint16(n)
	b.SideRegion = make([]uint8, (n+1)*4)
	for i := range b.SideRegion {
		b.SideRegion[i] = 0xFF
	}
	if n == 0 {
		return
	}
	const none = -1
	disc := make([]int32, n)
	low := make([]int32, n)
	size := make([]int32, n)
	parent := make([]int32, n)
	for i := range disc {
		disc[i] = none
	}
	type frame struct {
		sq  int32
		dir int8
	}
	stack := make([]frame, 0, n)
	t := int32(0)
	root := int32(b.StartPlayer)
	disc[root], low[root], parent[root] = t, t, none
	t++
	stack = append(stack, frame{root, 0})
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.dir < 4 {
			nb := b.Nbr[int(f.sq)*4+int(f.dir)]
			f.dir++
			if nb == wall {
				continue
			}
			m := int32(nb)
			if disc[m] == none {
				disc[m], low[m], parent[m] = t, t, f.sq
				t++
				stack = append(stack, frame{m, 0})
			} else if m != parent[f.sq] && disc[m] < low[f.sq] {
				low[f.sq] = disc[m]
			}
			continue
		}
		s := f.sq
		size[s]++ // itself
		stack = stack[:len(stack)-1]
		if p := parent[s]; p != none {
			size[p] += size[s]
			if low[s] < low[p] {
				low[p] = low[s]
			}
		}
	}
	b.disc = disc
	b.regLo = make([]int32, n*4)
	b.regHi = make([]int32, n*4)
	b.regLbl = make([]uint8, n*4)
	for s := 0; s < n; s++ {
		for e := 0; e < 4; e++ {
			cn := b.Nbr[s*4+e]
			if cn == wall || parent[cn] != int32(s) || disc[cn] < disc[s] {
				continue
			}
			c := int32(cn)
			b.regLo[s*4+e], b.regHi[s*4+e] = disc[c], disc[c]+size[c]
			b.regLbl[s*4+e] = 4
			if low[c] >= disc[s] {
				b.regLbl[s*4+e] = uint8(e)
			}
		}
	}
	for s := 0; s < n; s++ {
		// Label 4 is the region containing the DFS parent (and every child
		// subtree that links above s); labels 0..3 are the separate child
		// subtrees, numbered by direction.
		for d := 0; d < 4; d++ {
			nb := b.Nbr[s*4+d]
			if nb == wall {
				continue
			}
			m := int32(nb)
			label := uint8(4)
			if disc[m] > disc[s] && disc[m] < disc[s]+size[s] {
				// m is a descendant: find the child of s whose subtree holds it.
				for e := 0; e < 4; e++ {
					cn := b.Nbr[s*4+e]
					if cn == wall {
						continue
					}
					c := int32(cn)
					if parent[c] == int32(s) && disc[c] > disc[s] && disc[m] >= disc[c] && disc[m] < disc[c]+size[c] {
						if low[c] >= disc[s] {
							label = uint8(e)
						}
						break
					}
				}
			}
			b.SideRegion[s*4+d] = label
		}
	}
}

// computeDistances fills Dist by one reverse breadth-first search per goal
// over (box square, player side) states, pulling the box. A state's player
// side d means the player stands in the region of the box's neighbour in
// direction d; all sides with the same label are one state.
func (b *Board) computeDistances(ctx context.Context) error {
	n := b.Squares
	g := len(b.Goals)
	wall := uint16(n)
	b.Dist = make([]uint16, (n+1)*g)
	for i := range b.Dist {
		b.Dist[i] = Inf
	}
	if (n+1)*Regions*g <= MaxRegionDist {
		b.RegionDist = make([]uint16, (n+1)*Regions*g)
		for i := range b.RegionDist {
			b.RegionDist[i] = Inf
		}
	}
	if n == 0 || g == 0 {
		return nil
	}
	seen := make([]int32, n*4) // goal number + 1 that last visited a state
	queue := make([]int32, 0, n*4)
	dists := make([]uint16, 0, n*4) // distance per queue entry, parallel
	for j, goal := range b.Goals {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("board: analysis stopped: %w", err)
		}
		stamp := int32(j + 1)
		queue = queue[:0]
		// visit marks state (sq, side d) and every side connected to it.
		visit := func(sq uint16, d int, dist uint16) {
			lbl := b.SideRegion[int(sq)*4+d]
			for e := 0; e < 4; e++ {
				if b.SideRegion[int(sq)*4+e] == lbl && lbl != 0xFF {
					seen[int(sq)*4+e] = stamp
				}
			}
			queue = append(queue, int32(sq)*4+int32(d))
			if dist < b.Dist[int(sq)*g+j] {
				b.Dist[int(sq)*g+j] = dist
			}
			if r := (int(sq)*Regions+int(lbl))*g + j; b.RegionDist != nil && dist < b.RegionDist[r] {
				b.RegionDist[r] = dist
			}
		}
		dists = dists[:0]
		for d := 0; d < 4; d++ {
			if b.Nbr[int(goal)*4+d] != wall && seen[int(goal)*4+d] != stamp {
				visit(goal, d, 0)
				dists = append(dists, 0)
			}
		}
		for head := 0; head < len(queue); head++ {
			st := queue[head]
			sq, d := uint16(st/4), int(st%4)
			dist := dists[head]
			lbl := b.SideRegion[int(sq)*4+d]
			for e := 0; e < 4; e++ {
				if b.SideRegion[int(sq)*4+e] != lbl {
					continue
				}
				// Pull towards e: the player stands at sq+e and steps to
				// sq+2e; the box follows to sq+e, the player on its side e.
				p := b.Nbr[int(sq)*4+e]
				if p == wall {
					continue
				}
				p2 := b.Nbr[int(p)*4+e]
				if p2 == wall || seen[int(p)*4+e] == stamp {
					continue
				}
				visit(p, e, dist+1)
				dists = append(dists, dist+1)
			}
		}
	}
	return nil
}

// computeZobrist fills the Zobrist keys from a fixed-seed splitmix64 stream:
// deterministic across runs, no global random source.
func (b *Board) computeZobrist() {
	n := b.Squares + 1
	b.ZBox = make([]uint64, n)
	b.ZPlayer = make([]uint64, n)
	x := uint64(0x5c0b0d5c0b0d1234)
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	for i := 0; i < n; i++ {
		b.ZBox[i] = next()
		b.ZPlayer[i] = next()
	}
}
