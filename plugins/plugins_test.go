// Package plugins_test builds every Go plugin main under plugins/ once and
// runs the SDK's conformance suite against each binary.
package plugins_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sokod/sokod/sdk/plugintest"
)

// binDir holds the plugin binaries TestMain built, sokod-plugin-NAME each.
// Set once by TestMain before any test runs, then only read.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sokod-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := buildAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// mains returns the Go plugin mains: plugins/KIND/NAME directories with a
// main.go.
func mains() ([]string, error) {
	return filepath.Glob("*/*/main.go")
}

// buildAll builds every Go plugin main into dir as sokod-plugin-NAME with
// one go build invocation per binary (go build -o takes one main).
func buildAll(dir string) error {
	files, err := mains()
	if err != nil {
		return err
	}
	for _, f := range files {
		pkg := "./" + filepath.Dir(f)
		out := filepath.Join(dir, "sokod-plugin-"+filepath.Base(filepath.Dir(f)))
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return nil
}

func TestConformance(t *testing.T) {
	files, err := mains()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no plugin mains found")
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			plugintest.Run(t, filepath.Join(binDir, "sokod-plugin-"+name), plugintest.Options{})
		})
	}
}
