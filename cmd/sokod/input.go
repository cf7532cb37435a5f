package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sokod/sokod/sokoban"
)

// readInput reads the file at path, or standard input for "-".
func readInput(env *Env, path string) ([]byte, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(env.Stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, withCode(exitBadInput, fmt.Errorf("read %s: %w", path, err))
	}
	return b, nil
}

// readCollection reads and parses a level file; a parse error is bad input.
func readCollection(env *Env, path string) (*sokoban.Collection, error) {
	b, err := readInput(env, path)
	if err != nil {
		return nil, err
	}
	c, err := sokoban.ParseCollection(string(b))
	if err != nil {
		return nil, withCode(exitBadInput, fmt.Errorf("%s: %w", path, err))
	}
	return c, nil
}

// readLevel reads level number n (1-based) of the file at path.
func readLevel(env *Env, path string, n int) (*sokoban.Level, error) {
	c, err := readCollection(env, path)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > len(c.Levels) {
		return nil, withCode(exitBadInput, &noSuchLevelError{path: path, levels: len(c.Levels), n: n})
	}
	return c.Levels[n-1], nil
}

// noSuchLevelError is a level number beyond a file's levels.
type noSuchLevelError struct {
	path      string
	levels, n int
}

func (e *noSuchLevelError) Error() string {
	return fmt.Sprintf("%s has %d level(s); there is no level %d", e.path, e.levels, e.n)
}
