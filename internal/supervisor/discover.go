package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// BinaryPrefix starts the file name of every plugin binary:
// sokod-plugin-NAME, where NAME is the plugin's name.
const BinaryPrefix = "sokod-plugin-"

// namePattern is the plugin name syntax of the SDK (sdk.Info.Validate); a
// file whose suffix does not match is not a plugin. Never modified.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// Candidate is a plugin binary found by Discover.
type Candidate struct {
	// Name is NAME in sokod-plugin-NAME.
	Name string
	// Path is the binary's path, as the directory was given plus the file
	// name.
	Path string
	// ShadowedBy is the path of an earlier binary with the same name, which
	// wins, as in $PATH; empty for the binary in use.
	ShadowedBy string
}

// Discover lists the sokod-plugin-* executables in dirs, in the order of
// dirs and then by name. A name found in more than one directory is used
// from the first; the others are returned with ShadowedBy set. Problems
// that do not stop the search (a missing directory, a plugin file that is
// not executable, a name that is not a valid plugin name) come back as
// warnings.
func Discover(dirs []string) (found []Candidate, warnings []error) {
	first := map[string]string{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			warnings = append(warnings, fmt.Errorf("plugin directory %s: %w", dir, err))
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), BinaryPrefix)
			if !ok {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if !namePattern.MatchString(name) {
				warnings = append(warnings, fmt.Errorf("%s: %q is not a valid plugin name (lower-case letters, digits and '-')", path, name))
				continue
			}
			if err := checkExecutable(path); err != nil {
				warnings = append(warnings, err)
				continue
			}
			c := Candidate{Name: name, Path: path}
			if p, dup := first[name]; dup {
				c.ShadowedBy = p
			} else {
				first[name] = path
			}
			found = append(found, c)
		}
	}
	return found, warnings
}

// checkExecutable returns an error wrapping ErrNotFound unless path is a
// regular file (after symlinks) with an execute bit set.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrNotFound, path)
		}
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%w: %s is not an executable file", ErrNotFound, path)
	}
	return nil
}

// sortCandidates orders candidates by name, the one in use first.
func sortCandidates(cs []Candidate) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		switch {
		case a.ShadowedBy == "" && b.ShadowedBy != "":
			return -1
		case a.ShadowedBy != "" && b.ShadowedBy == "":
			return 1
		}
		return 0
	})
}
