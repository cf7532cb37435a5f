package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/sokod/sokod/sokoban"
)

// readInput reads the file at path, or standard input for "-". A text
// larger than a level text may be (sokoban.MaxInputBytes) is refused
// before it is read whole.
func readInput(env *Env, path string) ([]byte, error) {
	var r io.Reader = env.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, withCode(exitBadInput, fmt.Errorf("read %s: %w", path, err))
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, sokoban.MaxInputBytes+1))
	if err != nil {
		return nil, withCode(exitBadInput, fmt.Errorf("read %s: %w", path, err))
	}
	if len(b) > sokoban.MaxInputBytes {
		return nil, withCode(exitBadInput, fmt.Errorf("read %s: larger than %d MiB, the most a level or solution file may have", path, sokoban.MaxInputBytes>>20))
	}
	return b, nil
}

// decodeText returns b as text: UTF-8 as it is, anything else as
// Windows-1252 (of which Latin-1 is part), the encoding of older level
// files' titles and comments, so that they print, go into JSON and go to
// the daemon (whose API carries UTF-8 only) as the characters they are.
func decodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	s, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(s)
}

// readCollection reads and parses a level file; a parse error is bad input.
func readCollection(env *Env, path string) (*sokoban.Collection, error) {
	b, err := readInput(env, path)
	if err != nil {
		return nil, err
	}
	c, err := sokoban.ParseCollection(decodeText(b))
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
