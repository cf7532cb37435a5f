package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sokod/sokod/sokoban"
)

// sokFile is the SOK collection "bench --sok" writes: the collection as it
// was read, its stored solutions and saved games kept, with each solution
// found added unless a stored one is as good. It is rewritten after each
// solution it gains, so that an interrupted run keeps what it found.
type sokFile struct {
	path    string
	c       *sokoban.Collection
	added   int  // solutions added so far
	written bool // the file holds the collection
}

// add stores sol with l, a level of the collection, and rewrites the file
// when sol was stored.
func (f *sokFile) add(l *sokoban.Level, sol sokoban.Solution) error {
	added, err := l.AddSolution(sol)
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if !added {
		return nil
	}
	f.added++
	return f.write()
}

// finish writes the collection if no solution has been added: the file is
// written whatever was found.
func (f *sokFile) finish() error {
	if f.written {
		return nil
	}
	return f.write()
}

// write replaces the file with the collection: a temporary file in the
// same directory, renamed over it, so that a reader or a crash never sees
// half a file. An existing file keeps its permissions.
func (f *sokFile) write() error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(f.path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	_, err = tmp.WriteString(f.c.Text())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	f.written = true
	return nil
}
