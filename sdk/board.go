package sdk

import (
	"context"
	"fmt"
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// Analyze analyses the level with package board in the caller's process:
// neighbours, push distances, player regions, dead squares, tunnels and
// goal areas, numbered exactly as the level numbers its squares and goals
// (it checks that, since tables indexed any other way would be silently
// wrong). A level that breaks the protocol is an error wrapping
// ErrBadRequest; when ctx ends first, the error wraps ctx's.
//
// A level numbered by LevelFromBoard in this process, and still as it was
// numbered, gives back that board: an in-process component shares the
// host's analysis (read only) instead of holding a second copy.
func (l *Level) Analyze(ctx context.Context) (*board.Board, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if b := l.analysed; b != nil && l.numberedAs(b) == nil && l.startsAs(b) {
		return b, nil
	}
	sl, err := sokoban.Parse(l.XSBFromSquares())
	if err != nil {
		return nil, fmt.Errorf("%w: level does not parse: %w", ErrBadRequest, err)
	}
	b, err := board.AnalyzeContext(ctx, sl)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if err := l.numberedAs(b); err != nil {
		return nil, err
	}
	return b, nil
}

// numberedAs reports how b's numbering of squares and goals differs from
// l's, nil when it does not.
func (l *Level) numberedAs(b *board.Board) error {
	if b.Squares != len(l.Squares) || len(b.Goals) != len(l.Goals) || len(b.StartBoxes) != len(l.Boxes) {
		return fmt.Errorf("numbering differs: the board has %d squares, %d goals, %d boxes; the level has %d, %d, %d",
			b.Squares, len(b.Goals), len(b.StartBoxes), len(l.Squares), len(l.Goals), len(l.Boxes))
	}
	for i, c := range l.Squares {
		if int(b.Cell[i]) != c {
			return fmt.Errorf("numbering differs: board square %d is cell %d, the level's is cell %d", i, b.Cell[i], c)
		}
	}
	for i, g := range l.Goals {
		if int(b.Goals[i]) != g {
			return fmt.Errorf("numbering differs: board goal %d is square %d, the level's is %d", i, b.Goals[i], g)
		}
	}
	return nil
}

// startsAs reports whether l's start (boxes and player) is b's.
func (l *Level) startsAs(b *board.Board) bool {
	if l.Player != int(b.StartPlayer) || len(l.Boxes) != len(b.StartBoxes) {
		return false
	}
	start := slices.Sorted(slices.Values(b.StartBoxes))
	for i, sq := range l.Boxes {
		if sq != int(start[i]) {
			return false
		}
	}
	return true
}

// LevelFromBoard numbers an analysed board's level for the plugin protocol:
// the host sends levels numbered so.
func LevelFromBoard(b *board.Board) *Level {
	l := &Level{
		Width:    b.Width,
		Height:   b.Height,
		Squares:  make([]int, b.Squares),
		Goals:    make([]int, len(b.Goals)),
		Boxes:    make([]int, len(b.StartBoxes)),
		Player:   int(b.StartPlayer),
		XSB:      b.Level.XSB(),
		Title:    b.Level.Title,
		analysed: b,
	}
	for i, c := range b.Cell[:b.Squares] {
		l.Squares[i] = int(c)
	}
	for i, g := range b.Goals {
		l.Goals[i] = int(g)
	}
	for i, s := range b.StartBoxes {
		l.Boxes[i] = int(s)
	}
	slices.Sort(l.Boxes)
	return l
}
