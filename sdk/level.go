package sdk

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// Level is one level as the host numbers it. Every square number in the SDK
// is an index into Squares: the level's interior floor squares (those the
// player can reach when boxes are ignored) in row-major order. Cells not in
// Squares are walls or outside the board.
type Level struct {
	// Width and Height are the board's size in cells.
	Width, Height int
	// Squares[i] is the cell index y*Width+x of square i, ascending.
	Squares []int
	// Goals[g] is the square of goal g, ascending.
	Goals []int
	// Boxes are the squares of the boxes at the start, ascending.
	Boxes []int
	// Player is the player's square at the start.
	Player int
	// XSB is the level in XSB notation as the host read it. It is a
	// convenience for plugins that parse levels themselves; the fields
	// above are the authority, and XSBFromSquares renders them.
	XSB string
	// Title is the level's title, possibly empty.
	Title string

	// analysed is the board LevelFromBoard numbered the level from, in
	// this process; the wire never carries it.
	analysed *board.Board
}

// MaxSquares bounds len(Level.Squares): square numbers travel as uint16 and
// 0xFFFF is reserved.
const MaxSquares = 0xFFFF

// Validate checks that the numbering is consistent: squares ascending inside
// the board, goals and boxes ascending and distinct squares, no more boxes
// than goals, the player on a square without a box.
func (l *Level) Validate() error {
	if l == nil {
		return errors.New("no level")
	}
	if l.Width <= 0 || l.Height <= 0 {
		return fmt.Errorf("level size %dx%d", l.Width, l.Height)
	}
	n := len(l.Squares)
	if n == 0 || n > MaxSquares {
		return fmt.Errorf("level has %d squares, want 1 to %d", n, MaxSquares)
	}
	cells := l.Width * l.Height
	for i, c := range l.Squares {
		if c < 0 || c >= cells || (i > 0 && c <= l.Squares[i-1]) {
			return fmt.Errorf("squares: cell %d at %d is out of order or outside the %dx%d board", c, i, l.Width, l.Height)
		}
	}
	if err := ascendingSquares("goals", l.Goals, n); err != nil {
		return err
	}
	if err := ascendingSquares("boxes", l.Boxes, n); err != nil {
		return err
	}
	if len(l.Boxes) == 0 || len(l.Boxes) > len(l.Goals) {
		return fmt.Errorf("level has %d boxes and %d goals, want at least one box and no more boxes than goals", len(l.Boxes), len(l.Goals))
	}
	if l.Player < 0 || l.Player >= n {
		return fmt.Errorf("player on square %d of %d", l.Player, n)
	}
	if _, found := slices.BinarySearch(l.Boxes, l.Player); found {
		return fmt.Errorf("player and a box on square %d", l.Player)
	}
	return nil
}

func ascendingSquares(what string, sq []int, n int) error {
	for i, s := range sq {
		if s < 0 || s >= n || (i > 0 && s <= sq[i-1]) {
			return fmt.Errorf("%s: square %d at %d is out of order or not one of the %d squares", what, s, i, n)
		}
	}
	return nil
}

// SquareAt returns the square on cell (x, y), or -1 for a wall or a cell
// outside the board or the interior.
func (l *Level) SquareAt(x, y int) int {
	if x < 0 || y < 0 || x >= l.Width || y >= l.Height {
		return -1
	}
	i, found := slices.BinarySearch(l.Squares, y*l.Width+x)
	if !found {
		return -1
	}
	return i
}

// XY returns the column and row of square sq.
func (l *Level) XY(sq int) (x, y int) {
	c := l.Squares[sq]
	return c % l.Width, c / l.Width
}

// Neighbour returns the square next to sq in direction d, or -1 for a wall.
func (l *Level) Neighbour(sq int, d sokoban.Direction) int {
	x, y := l.XY(sq)
	dx, dy := d.Delta()
	return l.SquareAt(x+dx, y+dy)
}

// XSBFromSquares renders the level's authoritative fields as XSB: every
// cell that is not a square is a wall. Parsing it with the sokoban package
// numbers the squares exactly as Squares does, because both number the
// interior in row-major order.
func (l *Level) XSBFromSquares() string {
	row := make([]byte, l.Width)
	var b strings.Builder
	sq := 0
	for y := 0; y < l.Height; y++ {
		for x := 0; x < l.Width; x++ {
			row[x] = '#'
			if sq < len(l.Squares) && l.Squares[sq] == y*l.Width+x {
				_, goal := slices.BinarySearch(l.Goals, sq)
				_, box := slices.BinarySearch(l.Boxes, sq)
				row[x] = cellChar(goal, box, sq == l.Player)
				sq++
			}
		}
		b.Write(row)
		b.WriteByte('\n')
	}
	return b.String()
}

func cellChar(goal, box, player bool) byte {
	switch {
	case box && goal:
		return '*'
	case box:
		return '$'
	case player && goal:
		return '+'
	case player:
		return '@'
	case goal:
		return '.'
	}
	return ' '
}

// States is a batch of positions of one level, packed as they travel: no
// value per position, so thousands of positions cost one allocation and one
// message.
type States struct {
	// Boxes is the number of boxes in every position.
	Boxes int
	// Data holds the positions back to back, 1+Boxes squares each: the
	// player's square, then the boxes' squares in any order.
	Data []uint16
}

// NewStates returns an empty batch for positions with boxes boxes and room
// for capacity positions.
func NewStates(boxes, capacity int) States {
	return States{Boxes: boxes, Data: make([]uint16, 0, (1+boxes)*capacity)}
}

// Stride is the number of squares one position takes in Data.
func (s States) Stride() int { return 1 + s.Boxes }

// Len returns the number of positions.
func (s States) Len() int {
	if s.Boxes < 1 {
		return 0
	}
	return len(s.Data) / s.Stride()
}

// Player returns the player's square in position i.
func (s States) Player(i int) uint16 { return s.Data[i*s.Stride()] }

// BoxSquares returns the boxes' squares in position i; the slice aliases
// Data.
func (s States) BoxSquares(i int) []uint16 {
	o := i * s.Stride()
	return s.Data[o+1 : o+s.Stride() : o+s.Stride()]
}

// Append adds a position. boxes must hold s.Boxes squares.
func (s *States) Append(player uint16, boxes []uint16) {
	s.Data = append(s.Data, player)
	s.Data = append(s.Data, boxes...)
}

// Validate checks the batch's shape and that every square is one of a
// level's squares squares, wrapping ErrBadRequest.
func (s States) Validate(squares int) error {
	if s.Boxes < 1 {
		return fmt.Errorf("%w: a batch with %d boxes per position", ErrBadRequest, s.Boxes)
	}
	if len(s.Data)%s.Stride() != 0 {
		return fmt.Errorf("%w: batch of %d squares is not a whole number of %d-square positions", ErrBadRequest, len(s.Data), s.Stride())
	}
	for i, sq := range s.Data {
		if int(sq) >= squares {
			return fmt.Errorf("%w: position %d holds square %d of %d", ErrBadRequest, i/s.Stride(), sq, squares)
		}
	}
	return nil
}

// LevelFromSokoban numbers a parsed level's squares the way the host does:
// the cells the player can reach when boxes are ignored, in row-major
// order. Plugin tests and the conformance suite use it to build levels; the
// daemon sends levels numbered the same way.
func LevelFromSokoban(sl *sokoban.Level) (*Level, error) {
	w, h := sl.Width(), sl.Height()
	cells := sl.Cells()
	px, py := sl.Player()
	inside := make([]bool, w*h)
	start := py*w + px
	inside[start] = true
	stack := []int{start}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := c%w, c/w
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			dx, dy := d.Delta()
			nx, ny := x+dx, y+dy
			if nx < 0 || ny < 0 || nx >= w || ny >= h {
				return nil, fmt.Errorf("the player can walk off the board at column %d, row %d", x+1, y+1)
			}
			n := ny*w + nx
			if !inside[n] && !cells[n].Has(sokoban.Wall) {
				inside[n] = true
				stack = append(stack, n)
			}
		}
	}
	l := &Level{Width: w, Height: h, XSB: sl.XSB(), Title: sl.Title}
	for c, in := range inside {
		if !in {
			continue
		}
		sq := len(l.Squares)
		l.Squares = append(l.Squares, c)
		if cells[c].Has(sokoban.Goal) {
			l.Goals = append(l.Goals, sq)
		}
		if cells[c].Has(sokoban.Box) {
			l.Boxes = append(l.Boxes, sq)
		}
		if c == start {
			l.Player = sq
		}
	}
	if len(l.Boxes) != sl.Boxes() || len(l.Goals) != sl.Goals() {
		return nil, fmt.Errorf("%d boxes and %d goals lie outside the player's reach", sl.Boxes()-len(l.Boxes), sl.Goals()-len(l.Goals))
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l, nil
}

// SideOf returns the player's side of a box on square box, as
// HeuristicTables.SideCosts counts sides: the first direction, in LURD
// order, whose neighbour of box the player on square player could reach
// were that box the only one on the board. It returns -1 when player is box
// or cannot reach any neighbour. It walks the board, O(squares): for tests
// and for preparing tables, not for evaluating positions.
func (l *Level) SideOf(box, player int) int {
	if box == player {
		return -1
	}
	seen := make([]bool, len(l.Squares))
	seen[box], seen[player] = true, true
	stack := []int{player}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			if n := l.Neighbour(s, d); n >= 0 && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	for d := sokoban.Left; d <= sokoban.Down; d++ {
		if n := l.Neighbour(box, d); n >= 0 && seen[n] {
			return int(d)
		}
	}
	return -1
}
