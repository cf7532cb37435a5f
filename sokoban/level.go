// Package sokoban is sokod's public level model: it parses single levels and
// whole collections in XSB/SOK form (with run-length encoding), validates
// them, writes them back, and replays solutions in LURD notation with the
// standard metrics.
//
// The package imports nothing else of sokod, so GUIs and tools can use it on
// its own.
package sokoban

import "fmt"

// Board size limits. They bound the memory a hostile input can make the
// parser spend, and they are generous: far larger than any board of the
// collections sokod is tested on.
const (
	// MaxWidth is the largest accepted board width, in squares.
	MaxWidth = 128
	// MaxHeight is the largest accepted board height, in squares.
	MaxHeight = 128
)

// Cell is the content of one board square, as a set of flags. The zero
// Cell is an empty floor square (or a square outside the walls).
type Cell uint8

// Cell flags. Wall excludes the others; Box and Player exclude each other.
const (
	Wall Cell = 1 << iota
	Goal
	Box
	Player
)

// Has reports whether every flag in f is set in c.
func (c Cell) Has(f Cell) bool { return c&f == f }

// Direction is one of the four directions the player can step in.
type Direction uint8

// The four directions, in LURD order.
const (
	Left Direction = iota
	Up
	Right
	Down
)

// Delta returns the column and row change of one step in d.
func (d Direction) Delta() (dx, dy int) {
	switch d {
	case Left:
		return -1, 0
	case Up:
		return 0, -1
	case Right:
		return 1, 0
	default:
		return 0, 1
	}
}

// Reverse returns the opposite direction.
func (d Direction) Reverse() Direction { return (d + 2) % 4 }

// String returns the direction's name in lower case.
func (d Direction) String() string {
	switch d {
	case Left:
		return "left"
	case Up:
		return "up"
	case Right:
		return "right"
	case Down:
		return "down"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Note is one "Key: value" line attached to a level.
type Note struct {
	Key   string
	Value string
}

// Level is one validated Sokoban level. Squares are addressed by column x
// and row y from the top-left corner, or by the index y*Width+x. Create one
// with Parse, ParseCollection or NewLevel; the board of a Level is never
// invalid.
type Level struct {
	// Title is the level's name, from a ";" line, a title line or a
	// "Title:" note; empty when the source gives none.
	Title string
	// Notes are the level's "Key: value" lines in source order, other than
	// Title.
	Notes []Note
	// Comment holds the text of Comment: ... Comment-End: blocks and other
	// free text lines that belong to the level, joined by newlines.
	Comment string
	// Snapshots are the saved games and solutions stored with the level,
	// in source order.
	Snapshots []Snapshot
	// Line is the 1-based source line of the board's first row; 0 when the
	// level was not parsed from text.
	Line int

	width, height int
	cells         []Cell
	player        int
}

// Width returns the board width in squares.
func (l *Level) Width() int { return l.width }

// Height returns the board height in squares.
func (l *Level) Height() int { return l.height }

// At returns the cell at column x, row y; squares off the board are empty.
func (l *Level) At(x, y int) Cell {
	if x < 0 || y < 0 || x >= l.width || y >= l.height {
		return 0
	}
	return l.cells[y*l.width+x]
}

// Cells returns a copy of the board, row by row (index y*Width+x).
func (l *Level) Cells() []Cell { return append([]Cell(nil), l.cells...) }

// Player returns the player's column and row.
func (l *Level) Player() (x, y int) { return l.player % l.width, l.player / l.width }

// Boxes returns the number of boxes.
func (l *Level) Boxes() int { return l.count(Box) }

// Goals returns the number of goal squares.
func (l *Level) Goals() int { return l.count(Goal) }

// Solved reports whether every box stands on a goal.
func (l *Level) Solved() bool { return solved(l.cells) }

func (l *Level) count(f Cell) int {
	n := 0
	for _, c := range l.cells {
		if c.Has(f) {
			n++
		}
	}
	return n
}
