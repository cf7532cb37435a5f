package registry

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/internal/supervisor/supervisortest"
	"github.com/sokod/sokod/sokoban"
)

// builtinPlugins are the built-in heuristics served as plugins that the
// tests compare with the built-ins.
var builtinPlugins = []string{"simple", "greedy", "matching"}

// bins holds the binaries TestMain built: the test plugin and the
// builtinPlugins. Set once before the tests run, then only read.
var bins *supervisortest.Binaries

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	var mains []string
	for _, n := range builtinPlugins {
		mains = append(mains, "plugins/heuristics/"+n)
	}
	b, err := supervisortest.Build(mains...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Remove()
	bins = b
	return m.Run()
}

// pluginDir returns a fresh directory holding the named plugins.
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	return bins.PluginDir(t, names...)
}

// newSupervisor starts the plugins of opts.Dirs with quick timeouts and
// closes them at the end of the test.
func newSupervisor(t testing.TB, opts supervisor.Options) *supervisor.Supervisor {
	t.Helper()
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 20 * time.Millisecond
	}
	s := supervisor.New(opts)
	t.Cleanup(s.Close)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// waitReady polls until p is ready after at least starts starts.
func waitReady(t *testing.T, p *supervisor.Plugin, starts int) supervisor.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := p.Status()
		if st.State == supervisor.StateReady && st.Starts >= starts {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin %s: state %s after %d starts, want ready after %d (last error %v)", p.Name(), st.State, st.Starts, starts, st.LastError)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testBoard is a small level, analysed.
func testBoard(t testing.TB) *board.Board {
	t.Helper()
	l, err := sokoban.Parse("#######\n#@ $ .#\n# $ . #\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
