package sokoban

import "fmt"

// ErrorKind classifies why a level was rejected.
type ErrorKind int

// The reasons a level is rejected. Each ParseError carries one.
const (
	// ErrEmpty: the input holds no board at all.
	ErrEmpty ErrorKind = iota + 1
	// ErrUnknownChar: a board row holds a character that is not a board
	// character, a run-length count, a parenthesis or a row separator.
	ErrUnknownChar
	// ErrBadRLE: a run-length group is unbalanced or a count stands before
	// nothing.
	ErrBadRLE
	// ErrTooLarge: the board is wider than MaxWidth or higher than MaxHeight.
	ErrTooLarge
	// ErrNoPlayer: the board has no player.
	ErrNoPlayer
	// ErrTwoPlayers: the board has more than one player.
	ErrTwoPlayers
	// ErrNoBoxes: the board has no box.
	ErrNoBoxes
	// ErrBoxesGoals: the numbers of boxes and goals differ.
	ErrBoxesGoals
	// ErrOpenBorder: the player can walk off the board.
	ErrOpenBorder
	// ErrLevelCount: a single level was asked for and the input holds
	// several.
	ErrLevelCount
)

var kindNames = [...]string{
	ErrEmpty:       "empty",
	ErrUnknownChar: "unknown character",
	ErrBadRLE:      "bad run-length encoding",
	ErrTooLarge:    "board too large",
	ErrNoPlayer:    "no player",
	ErrTwoPlayers:  "two players",
	ErrNoBoxes:     "no boxes",
	ErrBoxesGoals:  "boxes and goals differ",
	ErrOpenBorder:  "open border",
	ErrLevelCount:  "more than one level",
}

// String returns a short stable name of the kind, fit for JSON.
func (k ErrorKind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// ParseError says why a level was rejected and where: the 1-based source
// line and column of the offending character or square (0 when the reason
// has no single place, as for a box count).
type ParseError struct {
	Kind ErrorKind
	// Level is the 1-based number of the level within its collection, 0
	// when the error is not about one level.
	Level  int
	Line   int
	Col    int
	Reason string
}

// Error returns "level N: line L, column C: reason".
func (e *ParseError) Error() string {
	s := ""
	if e.Level > 0 {
		s = fmt.Sprintf("level %d: ", e.Level)
	}
	switch {
	case e.Line > 0 && e.Col > 0:
		s += fmt.Sprintf("line %d, column %d: ", e.Line, e.Col)
	case e.Line > 0:
		s += fmt.Sprintf("line %d: ", e.Line)
	}
	return s + e.Reason
}

func errorAt(kind ErrorKind, p pos, format string, args ...any) *ParseError {
	return &ParseError{Kind: kind, Line: p.line, Col: p.col, Reason: fmt.Sprintf(format, args...)}
}
