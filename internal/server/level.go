package server

import (
	"errors"
	"fmt"

	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// Level-error kinds that are not sokoban.ErrorKind names.
const (
	kindNoSuchLevel = "no such level"
	kindEngine      = "engine"
)

// parseLevel reads level number n (0 meaning 1) of the text src. A level
// that cannot be used is a *sokodv1.LevelError.
func parseLevel(src string, n int32) (*sokoban.Level, *sokodv1.LevelError) {
	c, err := sokoban.ParseCollection(src)
	if err != nil {
		return nil, levelError(err)
	}
	if n == 0 {
		n = 1
	}
	if n < 1 || int(n) > len(c.Levels) {
		reason := fmt.Sprintf("the text has %d level(s); there is no level %d", len(c.Levels), n)
		return nil, &sokodv1.LevelError{Kind: kindNoSuchLevel, Level: n, Reason: reason, Message: reason, Levels: int32(len(c.Levels))}
	}
	return c.Levels[n-1], nil
}

// levelError describes err: a *sokoban.ParseError with its place, anything
// else (the engine refusing the board) by its text.
func levelError(err error) *sokodv1.LevelError {
	var pe *sokoban.ParseError
	if errors.As(err, &pe) {
		return &sokodv1.LevelError{Kind: pe.Kind.String(), Level: int32(pe.Level), Line: int32(pe.Line), Column: int32(pe.Col),
			Reason: pe.Reason, Message: pe.Error()}
	}
	return &sokodv1.LevelError{Kind: kindEngine, Reason: err.Error(), Message: err.Error()}
}
