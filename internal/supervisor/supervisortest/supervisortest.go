// Package supervisortest builds the plugin binaries that the tests of the
// supervisor and of the packages above it start: the misbehaving test
// plugin (internal/supervisor/testdata/testplugin), whose mode is the name
// it runs under, and plugin mains of plugins/.
package supervisortest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BinaryPrefix starts the file name of every plugin binary
// (supervisor.BinaryPrefix).
const BinaryPrefix = "sokod-plugin-"

// Binaries is a directory of built plugin binaries.
type Binaries struct {
	dir string
}

// Build compiles the test plugin and the plugin mains at mains (paths
// below the module root, such as "plugins/heuristics/matching", each built
// as sokod-plugin-BASE) into a new temporary directory. It is for TestMain:
// remove the directory with Remove when the tests are done.
func Build(mains ...string) (*Binaries, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "sokod-plugins-")
	if err != nil {
		return nil, err
	}
	build := func(out, pkg string) error {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, out), "./"+pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
		}
		return nil
	}
	if err := build("testplugin", "internal/supervisor/testdata/testplugin"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, m := range mains {
		if err := build(BinaryPrefix+filepath.Base(m), m); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return &Binaries{dir: dir}, nil
}

// TestPlugin returns the path of the test plugin's binary.
func (b *Binaries) TestPlugin() string { return filepath.Join(b.dir, "testplugin") }

// Remove deletes the binaries.
func (b *Binaries) Remove() { os.RemoveAll(b.dir) }

// PluginDir returns a fresh directory holding the named plugins: a name
// built by Build links to its binary, any other to the test plugin, whose
// mode it names.
func (b *Binaries) PluginDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src := filepath.Join(b.dir, BinaryPrefix+n)
		if _, err := os.Stat(src); err != nil {
			src = filepath.Join(b.dir, "testplugin")
		}
		if err := os.Symlink(src, filepath.Join(dir, BinaryPrefix+n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// moduleRoot finds the directory of go.mod from the working directory,
// which for a test is its package's.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}
