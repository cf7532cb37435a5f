// Package plugins_test builds every Go plugin main under plugins/ once and
// runs the SDK's conformance suite against each binary.
package plugins_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/plugintest"
	"github.com/sokod/sokod/sokoban"

	// The plugin binaries are built by TestMain, outside the test's own
	// dependencies; importing their code makes a change to it invalidate
	// go test's cached result.
	_ "github.com/sokod/sokod/plugins/internal/builtinplugin"
)

// binDir holds the plugin binaries TestMain built, sokod-plugin-NAME each.
// Set once by TestMain before any test runs, then only read.
var binDir string

func TestMain(m *testing.M) {
	if os.Getenv(targetEnv) != "" {
		// A child run by TestSuiteCatchesBadPlugins: no binaries to build.
		os.Exit(m.Run())
	}
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

// startRegistry returns a registry of the plugins in dir, stopped when the
// test ends.
func startRegistry(t *testing.T, dir string) *registry.Registry {
	host := supervisor.New(supervisor.Options{Dirs: []string{dir}, StartTimeout: 30 * time.Second})
	t.Cleanup(host.Close)
	return registry.New(host, nil)
}

// pythonDir holds the Python example plugin, which runs from the source
// tree as it is.
const pythonDir = "heuristics/pydistance"

// needPython skips the test unless Debian's python3 with gRPC and protobuf
// is installed (.ci/run installs python3-grpcio and python3-protobuf).
func needPython(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		t.Skipf("skipping the Python plugin: /usr/bin/python3 with python3-grpcio and python3-protobuf is needed: %v: %s", err, out)
	}
}

func TestPythonConformance(t *testing.T) {
	needPython(t)
	plugintest.Run(t, filepath.Join(pythonDir, "sokod-plugin-pydistance"), plugintest.Options{})
}

// TestPythonSolves solves levels through the Python plugin's tables and
// checks the solutions against the built-in matching heuristic: both are
// admissible, so both prove the same optimal push count.
func TestPythonSolves(t *testing.T) {
	needPython(t)
	reg := startRegistry(t, pythonDir)
	ctx := context.Background()
	py, err := reg.Heuristic(ctx, "pydistance")
	if err != nil {
		t.Fatal(err)
	}
	if !py.Admissible {
		t.Fatal("pydistance does not declare itself admissible")
	}
	builtinMatching, err := reg.Heuristic(ctx, "matching")
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range plugintest.Levels() {
		t.Run(fmt.Sprintf("level%d", i+1), func(t *testing.T) {
			l, err := sokoban.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			pushes := map[string]int{}
			for _, h := range []*registry.Heuristic{py, builtinMatching} {
				eh, err := h.Prepare(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: eh, Budget: engine.Budget{Memory: 1 << 20}})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != engine.Solved || !res.Optimal {
					t.Fatalf("%s: %v %s, optimal %v", h.Name, res.Status, res.Reason, res.Optimal)
				}
				// Solve has replayed the solution with the verifier; replay
				// it once more here, independently of the engine.
				m, err := sokoban.Replay(l, res.Solution)
				if err != nil || !m.Solved {
					t.Fatalf("%s: solution %s does not solve the level: %v", h.Name, res.Solution, err)
				}
				pushes[h.Name] = m.Pushes
			}
			if pushes["pydistance"] != pushes["matching"] {
				t.Errorf("optimal pushes: pydistance %d, matching %d", pushes["pydistance"], pushes["matching"])
			}
		})
	}
}

// pylinearDir holds the Python batch plugin, which runs from the source tree
// beside pydistance, whose server it reuses.
const pylinearDir = "heuristics/pylinear"

// needNumpy skips the test unless Debian's python3-numpy is installed too
// (.ci/run installs it).
func needNumpy(t *testing.T) {
	t.Helper()
	needPython(t)
	if out, err := exec.Command("/usr/bin/python3", "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("skipping the Python batch plugin: /usr/bin/python3 with python3-numpy is needed: %v: %s", err, out)
	}
}

func TestPythonBatchConformance(t *testing.T) {
	needNumpy(t)
	plugintest.Run(t, filepath.Join(pylinearDir, "sokod-plugin-pylinear"), plugintest.Options{})
}

// TestPythonBatchSolves solves levels through the Python batch plugin,
// under objective any (it does not declare itself admissible): solutions
// that replay, found through batches, never claimed optimal.
func TestPythonBatchSolves(t *testing.T) {
	needNumpy(t)
	reg := startRegistry(t, pylinearDir)
	ctx := context.Background()
	py, err := reg.Heuristic(ctx, "pylinear")
	if err != nil {
		t.Fatal(err)
	}
	if py.Admissible {
		t.Fatal("pylinear declares itself admissible")
	}
	for i, src := range plugintest.Levels() {
		t.Run(fmt.Sprintf("level%d", i+1), func(t *testing.T) {
			l, err := sokoban.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			eh, err := py.Prepare(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: eh, BatchSize: 64, Budget: engine.Budget{Memory: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != engine.Solved || res.Optimal || res.Stats.Batches == 0 {
				t.Fatalf("%v %s, optimal %v, %d batches", res.Status, res.Reason, res.Optimal, res.Stats.Batches)
			}
			m, err := sokoban.Replay(l, res.Solution)
			if err != nil || !m.Solved {
				t.Fatalf("solution %s does not solve the level: %v", res.Solution, err)
			}
		})
	}
}

// TestBatchPluginSolves solves levels through matching-batch, the built-in
// matching bound answered in Estimate calls, and checks it against the
// built-in: the same optimal push counts, proved, at every batch size, and
// at batches of one the very same search.
func TestBatchPluginSolves(t *testing.T) {
	reg := startRegistry(t, binDir)
	ctx := context.Background()
	batch, err := reg.Heuristic(ctx, "matching-batch")
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := reg.Heuristic(ctx, "matching")
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range plugintest.Levels() {
		t.Run(fmt.Sprintf("level%d", i+1), func(t *testing.T) {
			l, err := sokoban.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			solve := func(h *registry.Heuristic, size int) *engine.Result {
				eh, err := h.Prepare(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: eh, BatchSize: size, Budget: engine.Budget{Memory: 1 << 20}})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != engine.Solved || !res.Optimal {
					t.Fatalf("%s, batches of %d: %v %s, optimal %v", h.Name, size, res.Status, res.Reason, res.Optimal)
				}
				return res
			}
			want := solve(builtin, 0)
			for _, size := range []int{1, 64, 1024} {
				got := solve(batch, size)
				if got.Metrics.Pushes != want.Metrics.Pushes {
					t.Errorf("batches of %d: %d pushes, the built-in %d", size, got.Metrics.Pushes, want.Metrics.Pushes)
				}
				if got.Stats.Batches == 0 {
					t.Errorf("batches of %d: no batch sent", size)
				}
				if size == 1 && got.Stats.Nodes != want.Stats.Nodes {
					t.Errorf("batches of one: %d nodes, the built-in %d", got.Stats.Nodes, want.Stats.Nodes)
				}
			}
		})
	}
}

// targetEnv names the plugin binary TestConformanceTarget checks; it is set
// only in the child processes of TestSuiteCatchesBadPlugins.
const targetEnv = "SOKOD_PLUGINTEST_TARGET"

// TestConformanceTarget runs the suite against $SOKOD_PLUGINTEST_TARGET.
func TestConformanceTarget(t *testing.T) {
	path := os.Getenv(targetEnv)
	if path == "" {
		t.Skip("run by TestSuiteCatchesBadPlugins only")
	}
	plugintest.Run(t, path, plugintest.Options{StartTimeout: 10 * time.Second, CallTimeout: 10 * time.Second})
}

// TestSuiteCatchesBadPlugins runs the conformance suite, in a child
// process, against plugins that break the protocol on purpose, and checks
// that it fails them for the right reason.
func TestSuiteCatchesBadPlugins(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "testplugin")
	if out, err := exec.Command("go", "build", "-o", bin, "../internal/supervisor/testdata/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tests := []struct {
		mode string
		want string // in the child's output
	}{
		{"misnamed", `calls itself "other"`},
		{"garbage", "cost table has"},
		{"chatty", "Unrecognized remote plugin message"},
		{"crashy", "Prepare: prepare heuristic: rpc error: code = Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, "sokod-plugin-"+tt.mode)
			if err := os.Symlink(bin, path); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestConformanceTarget$", "-test.v")
			cmd.Env = append(os.Environ(), targetEnv+"="+path)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a plugin that breaks the protocol:\n%s", out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("the suite failed, but without mentioning %q:\n%s", tt.want, out)
			}
		})
	}
}

// BenchmarkBatchPath measures positions per second through matching-batch,
// the built-in matching bound in Estimate calls, and through pylinear, the
// Python model scored with numpy, at batch sizes 1, 64 and 1024, against
// the matching bound evaluated in process (engine.Evaluator) on the same
// positions: every box of a Microban-sized level moved to every free
// square in turn.
func BenchmarkBatchPath(b *testing.B) {
	l, err := sokoban.Parse(plugintest.Levels()[len(plugintest.Levels())-1])
	if err != nil {
		b.Fatal(err)
	}
	bd, err := board.Analyze(l)
	if err != nil {
		b.Fatal(err)
	}
	var positions [][]uint16 // player, then boxes
	for i := range bd.StartBoxes {
		for sq := range bd.Squares {
			boxes := slices.Clone(bd.StartBoxes)
			if slices.Contains(boxes, uint16(sq)) || slices.Contains(boxes, bd.StartPlayer) || uint16(sq) == bd.StartPlayer {
				continue
			}
			boxes[i] = uint16(sq)
			positions = append(positions, append([]uint16{bd.StartPlayer}, boxes...))
		}
	}
	ctx := context.Background()
	prepare := func(dir, name string) sdk.Estimator {
		host := supervisor.New(supervisor.Options{Dirs: []string{dir}, StartTimeout: 30 * time.Second})
		b.Cleanup(host.Close)
		p := host.Lookup(name)
		if p == nil {
			b.Fatalf("no %s plugin in %s", name, dir)
		}
		if err := p.Start(ctx); err != nil {
			b.Fatal(err)
		}
		prep, err := p.Heuristic().Prepare(ctx, sdk.LevelFromBoard(bd))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = prep.Estimator.Release(ctx) })
		return prep.Estimator
	}
	plugins := map[string]sdk.Estimator{"go": prepare(binDir, "matching-batch")}
	if exec.Command("/usr/bin/python3", "-c", "import grpc, google.protobuf, numpy").Run() == nil {
		plugins["python"] = prepare(pylinearDir, "pylinear")
	} else {
		b.Log("no python3 with grpcio, protobuf and numpy: the Python plugin is left out")
	}
	h, err := heuristics.Lookup("matching")
	if err != nil {
		b.Fatal(err)
	}
	eh, err := h.Prepare(bd)
	if err != nil {
		b.Fatal(err)
	}
	ev, err := engine.NewEvaluator(bd, eh)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("in-process", func(b *testing.B) {
		k := 0
		for b.Loop() {
			pos := positions[k%len(positions)]
			k++
			if _, _, err := ev.Bound(pos[1:], pos[0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "states/s")
	})
	for _, lang := range []string{"go", "python"} {
		est := plugins[lang]
		if est == nil {
			continue
		}
		for _, n := range []int{1, 64, 1024} {
			b.Run(fmt.Sprintf("%s/batch=%d", lang, n), func(b *testing.B) {
				states := sdk.NewStates(len(bd.StartBoxes), n)
				for k := range n {
					pos := positions[k%len(positions)]
					states.Append(pos[0], pos[1:])
				}
				out := make([]uint32, n)
				for b.Loop() {
					if err := est.Estimate(ctx, states, out); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "states/s")
			})
		}
	}
}
