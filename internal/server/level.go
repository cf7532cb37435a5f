package server

import (
	"errors"
	"fmt"

	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// levelErrorKinds maps the parser's error kinds to the API's.
var levelErrorKinds = map[sokoban.ErrorKind]sokodv1.LevelErrorKind{
	sokoban.ErrEmpty:       sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_EMPTY,
	sokoban.ErrUnknownChar: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_UNKNOWN_CHARACTER,
	sokoban.ErrBadRLE:      sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_BAD_RUN_LENGTH,
	sokoban.ErrTooLarge:    sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_BOARD_TOO_LARGE,
	sokoban.ErrNoPlayer:    sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_NO_PLAYER,
	sokoban.ErrTwoPlayers:  sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_TWO_PLAYERS,
	sokoban.ErrNoBoxes:     sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_NO_BOXES,
	sokoban.ErrBoxesGoals:  sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_BOXES_GOALS_DIFFER,
	sokoban.ErrOpenBorder:  sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_OPEN_BORDER,
	sokoban.ErrLevelCount:  sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_MORE_THAN_ONE_LEVEL,
}

// parseLevel reads level number n (0 meaning 1) of the text src, keeping
// only that level of a collection. A level that cannot be used is a
// *sokodv1.LevelError.
func parseLevel(src string, n int32) (*sokoban.Level, *sokodv1.LevelError) {
	if n == 0 {
		n = 1
	}
	l, count, err := sokoban.ParseLevel(src, int(n))
	if err != nil {
		return nil, levelError(err)
	}
	if l == nil {
		reason := fmt.Sprintf("the text has %d level(s); there is no level %d", count, n)
		return nil, &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_NO_SUCH_LEVEL, Level: n, Reason: reason, Message: reason, Levels: int32(count)}
	}
	return l, nil
}

// levelError describes err: a *sokoban.ParseError with its place, anything
// else (the engine refusing the board) by its text.
func levelError(err error) *sokodv1.LevelError {
	var pe *sokoban.ParseError
	if errors.As(err, &pe) {
		return &sokodv1.LevelError{Kind: levelErrorKinds[pe.Kind], Level: int32(pe.Level), Line: int32(pe.Line), Column: int32(pe.Col),
			Reason: pe.Reason, Message: pe.Error()}
	}
	return &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_ENGINE, Reason: err.Error(), Message: err.Error()}
}
