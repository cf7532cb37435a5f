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
		return nil, withCode(exitBadInput, fmt.Errorf("%s has %d level(s); there is no level %d", path, len(c.Levels), n))
	}
	return c.Levels[n-1], nil
}
