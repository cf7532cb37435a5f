// Package plugintest is the conformance suite for sokod plugins. A plugin
// author builds the plugin binary and runs the suite against it from a Go
// test, whatever language the plugin is written in:
//
//	func TestConformance(t *testing.T) {
//		plugintest.Run(t, "/path/to/sokod-plugin-mine", plugintest.Options{})
//	}
//
// The suite starts the binary as the daemon does (go-plugin handshake, gRPC)
// and checks what every host relies on: the binary refuses to run without
// the handshake; Info is valid and names the binary; prepared tables fit
// the level, are deterministic and agree with the declared capabilities;
// an admissible heuristic rates a solved position 0; batch answers come one
// per position, in order; a detector never calls a solved position a
// deadlock; bad requests are refused without killing the plugin;
// concurrent calls work; the process exits when the host lets it go.
//
// Planners are checked for their Info only: a plan needs a host
// implementation (package sdk's Host), which the daemon provides.
package plugintest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginclient"
	"github.com/sokod/sokod/sdk/pluginserver"
	"github.com/sokod/sokod/sokoban"
)

// Options tune the suite.
type Options struct {
	// Levels are XSB levels to prepare, in addition to the suite's own.
	Levels []string
	// StartTimeout bounds the plugin's start. Default 20s, generous for
	// interpreted plugins on a loaded machine.
	StartTimeout time.Duration
	// CallTimeout bounds each call. Default 20s.
	CallTimeout time.Duration
}

// levels are the suite's own levels: small, with boxes on goals, walls
// inside, and cells outside the player's reach. Never modified.
var levels = []string{
	"#######\n#@ $ .#\n# $ . #\n#######\n",
	"  ####\n###  ####\n#     $ #\n# #  #$ #\n# . .#@ #\n#########\n",
	"#######\n#.@ # #\n#$* $ #\n#   $ #\n# ..  #\n#  *  #\n#######\n",
}

// Levels returns the suite's own levels as XSB text.
func Levels() []string { return slices.Clone(levels) }

// Run runs the suite against the plugin binary at path, as subtests of t.
func Run(t *testing.T, path string, opts Options) {
	t.Helper()
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 20 * time.Second
	}
	var lv []*sdk.Level
	for i, src := range append(Levels(), opts.Levels...) {
		sl, err := sokoban.Parse(src)
		if err != nil {
			t.Fatalf("level %d: %v", i+1, err)
		}
		l, err := sdk.LevelFromSokoban(sl)
		if err != nil {
			t.Fatalf("level %d: %v", i+1, err)
		}
		lv = append(lv, l)
	}

	t.Run("RefusesToRunWithoutHandshake", func(t *testing.T) { refusesWithoutHandshake(t, path, opts) })

	client, c := Start(t, path, opts.StartTimeout)
	ctx := context.Background()
	call := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, opts.CallTimeout) }

	cctx, cancel := call()
	info, err := c.Info(cctx)
	cancel()
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	t.Run("Info", func(t *testing.T) {
		base := filepath.Base(path)
		if name, ok := strings.CutPrefix(base, "sokod-plugin-"); ok && name != info.Name {
			t.Errorf("binary %s calls itself %q; the host refuses a plugin whose name differs from its file name", base, info.Name)
		}
		if !strings.HasPrefix(base, "sokod-plugin-") {
			t.Errorf("binary %s: the host only finds plugins named sokod-plugin-NAME", base)
		}
		if info.Version == "" {
			t.Error("Info has no version")
		}
	})
	if info.Serves(sdk.KindHeuristic) {
		t.Run("Heuristic", func(t *testing.T) { checkHeuristic(t, c.Heuristic(), info, lv, call) })
	}
	if info.Serves(sdk.KindDeadlock) {
		t.Run("Deadlocks", func(t *testing.T) { checkDeadlocks(t, c.Deadlocks(), info, lv, call) })
	}
	t.Run("BadLevelRefused", func(t *testing.T) {
		bad := &sdk.Level{Width: 2, Height: 1, Squares: []int{1, 0}, Goals: []int{0}, Boxes: []int{1}}
		cctx, cancel := call()
		defer cancel()
		var err error
		switch {
		case info.Serves(sdk.KindHeuristic):
			_, err = c.Heuristic().Prepare(cctx, bad)
		case info.Serves(sdk.KindDeadlock):
			_, err = c.Deadlocks().Prepare(cctx, bad)
		default:
			t.Skip("no component takes a level outside a plan")
		}
		if err == nil {
			t.Error("a level with squares out of order was accepted")
		}
		if _, err := c.Info(cctx); err != nil {
			t.Errorf("the plugin no longer answers after a bad request: %v", err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		if !info.Serves(sdk.KindHeuristic) {
			t.Skip("no heuristic")
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := call()
				defer cancel()
				h, err := c.Heuristic().Prepare(cctx, lv[i%len(lv)])
				if err == nil && h.Estimator != nil {
					err = h.Estimator.Release(cctx)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Error(err)
		}
	})
	t.Run("ExitsWhenReleased", func(t *testing.T) {
		client.Kill()
		if !client.Exited() {
			t.Error("the process is still running after Kill")
		}
	})
}

// Start launches the plugin binary at path as the daemon does and returns
// the go-plugin client (killed when the test ends) and the SDK client.
func Start(t testing.TB, path string, startTimeout time.Duration) (*plugin.Client, *pluginclient.Client) {
	t.Helper()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginclient.Handshake(),
		Plugins:          pluginclient.PluginSet(),
		Cmd:              exec.Command(path),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     startTimeout,
		GRPCDialOptions:  pluginclient.DialOptions(),
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugintest", Output: testWriter{t}, Level: hclog.Warn}),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	raw, err := rpc.Dispense(pluginclient.PluginSetKey)
	if err != nil {
		t.Fatalf("dispense: %v", err)
	}
	return client, raw.(*pluginclient.Client)
}

// Connect serves p in this process and returns the host's client of it,
// as the daemon would see p run as a plugin binary: for a plugin's unit
// tests through the protocol, without building the binary. The connection
// closes when the test ends. It fails the test when p does not validate.
func Connect(t testing.TB, p *sdk.Plugin) *pluginclient.Client {
	t.Helper()
	c, _ := ConnectRaw(t, p)
	return c
}

// ConnectRaw is Connect that also returns go-plugin's connection, for
// tests that send the protocol's messages themselves.
func ConnectRaw(t testing.TB, p *sdk.Plugin) (*pluginclient.Client, *plugin.GRPCClient) {
	t.Helper()
	served, err := pluginserver.PluginSet(p)
	if err != nil {
		t.Fatal(err)
	}
	set := plugin.PluginSet{}
	for k, srv := range served {
		set[k] = bothEnds{server: srv.(plugin.GRPCPlugin), client: pluginclient.PluginSet()[k].(plugin.GRPCPlugin)}
	}
	// Closing the client asks the server to shut down through go-plugin's
	// controller; stopping the server here as well would race with that.
	client, _ := plugin.TestPluginGRPCConn(t, false, set)
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(pluginclient.PluginSetKey)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*pluginclient.Client), client
}

// bothEnds joins the plugin's end and the host's end of the protocol into
// one go-plugin Plugin, as an in-process connection needs.
type bothEnds struct {
	plugin.NetRPCUnsupportedPlugin
	server, client plugin.GRPCPlugin
}

func (b bothEnds) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	return b.server.GRPCServer(broker, s)
}

func (b bothEnds) GRPCClient(ctx context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return b.client.GRPCClient(ctx, broker, conn)
}

// testWriter sends log lines to t.Log, so they show with the failing test.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func refusesWithoutHandshake(t *testing.T, path string, opts Options) {
	ctx, cancel := context.WithTimeout(context.Background(), opts.StartTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, pluginclient.MagicCookieKey+"=") })
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatal("run without the handshake, the binary did not exit: it must say it is a plugin and exit")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("run without the handshake, the binary exited with %v; want a non-zero status", err)
	}
	if len(out) > 0 {
		t.Errorf("run without the handshake, the binary wrote %q to stdout; stdout belongs to the handshake", out)
	}
}

func checkHeuristic(t *testing.T, h sdk.Heuristic, info *sdk.Info, lv []*sdk.Level, call func() (context.Context, context.CancelFunc)) {
	for i, l := range lv {
		t.Run(fmt.Sprintf("level%d", i+1), func(t *testing.T) {
			ctx, cancel := call()
			defer cancel()
			p, err := h.Prepare(ctx, l)
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if p.Admissible != info.Has(sdk.CapAdmissible) {
				t.Errorf("Prepare says admissible=%v, Info says %v", p.Admissible, info.Has(sdk.CapAdmissible))
			}
			solved := solvedState(l)
			switch {
			case p.Tables != nil:
				if !info.Has(sdk.CapHeuristicTables) {
					t.Errorf("answered with tables without declaring %s", sdk.CapHeuristicTables)
				}
				again, err := h.Prepare(ctx, l)
				if err != nil {
					t.Fatalf("second Prepare: %v", err)
				}
				if diff := cmp.Diff(p, again); diff != "" {
					t.Errorf("Prepare is not deterministic (-first +second):\n%s", diff)
				}
				if p.Admissible {
					checkZeroOnGoals(t, p.Tables, l)
				}
			case p.Estimator != nil:
				if !info.Has(sdk.CapHeuristicEstimate) {
					t.Errorf("answered with an estimator without declaring %s", sdk.CapHeuristicEstimate)
				}
				checkEstimator(t, ctx, p, l, solved)
			}
		})
	}
}

// checkZeroOnGoals checks what admissibility implies for a box already on
// its goal: it costs 0, in the plain table and for every side the player
// can stand on.
func checkZeroOnGoals(t *testing.T, tables *sdk.HeuristicTables, l *sdk.Level) {
	t.Helper()
	ng := len(l.Goals)
	for g, sq := range l.Goals {
		if c := tables.Costs[sq*ng+g]; c != 0 {
			t.Errorf("admissible, but a box on goal %d costs %d to reach it", g, c)
		}
		if tables.SideCosts == nil {
			continue
		}
		for d := sokoban.Left; d <= sokoban.Down; d++ {
			if l.Neighbour(sq, d) < 0 {
				continue
			}
			if c := tables.SideCosts[(sq*sdk.Sides+int(d))*ng+g]; c != 0 {
				t.Errorf("admissible, but a box on goal %d with the player on side %v costs %d to reach it", g, d, c)
			}
		}
	}
}

// solvedState returns the position with every box on a goal (the first
// len(Boxes) goals) and the player on the first free square.
func solvedState(l *sdk.Level) sdk.States {
	boxes := make([]uint16, len(l.Boxes))
	for i := range boxes {
		boxes[i] = uint16(l.Goals[i])
	}
	player := 0
	for slices.Contains(boxes, uint16(player)) {
		player++
	}
	s := sdk.NewStates(len(boxes), 1)
	s.Append(uint16(player), boxes)
	return s
}

func startState(l *sdk.Level) sdk.States {
	boxes := make([]uint16, len(l.Boxes))
	for i, b := range l.Boxes {
		boxes[i] = uint16(b)
	}
	s := sdk.NewStates(len(boxes), 1)
	s.Append(uint16(l.Player), boxes)
	return s
}

func checkEstimator(t *testing.T, ctx context.Context, p *sdk.PreparedHeuristic, l *sdk.Level, solved sdk.States) {
	start := startState(l)
	one := make([]uint32, 1)
	if err := p.Estimator.Estimate(ctx, start, one); err != nil {
		t.Fatalf("Estimate: %v", err)
	}
	// A batch of the start and solved positions, alternating, must answer
	// the same as each alone, in order.
	solvedOne := make([]uint32, 1)
	if err := p.Estimator.Estimate(ctx, solved, solvedOne); err != nil {
		t.Fatalf("Estimate: %v", err)
	}
	if p.Admissible && solvedOne[0] != 0 {
		t.Errorf("admissible, but a solved position is estimated %d", solvedOne[0])
	}
	batch := sdk.NewStates(start.Boxes, 64)
	want := make([]uint32, 0, 64)
	for i := range 64 {
		if i%2 == 0 {
			batch.Append(start.Player(0), start.BoxSquares(0))
			want = append(want, one[0])
		} else {
			batch.Append(solved.Player(0), solved.BoxSquares(0))
			want = append(want, solvedOne[0])
		}
	}
	got := make([]uint32, 64)
	if err := p.Estimator.Estimate(ctx, batch, got); err != nil {
		t.Fatalf("Estimate of 64: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batch answers differ from single ones (-want +got):\n%s", diff)
	}
	if err := p.Estimator.Release(ctx); err != nil {
		t.Errorf("Release: %v", err)
	}
	if err := p.Estimator.Estimate(ctx, start, one); !errors.Is(err, sdk.ErrUnknownSession) {
		t.Errorf("Estimate after Release: %v, want an unknown-session error", err)
	}
}

func checkDeadlocks(t *testing.T, d sdk.DeadlockDetector, info *sdk.Info, lv []*sdk.Level, call func() (context.Context, context.CancelFunc)) {
	for i, l := range lv {
		t.Run(fmt.Sprintf("level%d", i+1), func(t *testing.T) {
			ctx, cancel := call()
			defer cancel()
			p, err := d.Prepare(ctx, l)
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if p.Tables != nil && !info.Has(sdk.CapDeadlockTables) {
				t.Errorf("answered with tables without declaring %s", sdk.CapDeadlockTables)
			}
			if p.Checker != nil && !info.Has(sdk.CapDeadlockCheck) {
				t.Errorf("answered with a checker without declaring %s", sdk.CapDeadlockCheck)
			}
			solved := solvedState(l)
			if p.Tables != nil {
				for _, sq := range p.Tables.DeadSquares {
					if slices.Contains(l.Goals, sq) {
						t.Errorf("goal square %d is called dead", sq)
					}
				}
				for _, s := range p.Tables.Sets {
					if n := countOn(solved.BoxSquares(0), s.Squares); n > s.Capacity {
						t.Errorf("deadlock set %v (capacity %d) holds %d boxes in a solved position", s.Squares, s.Capacity, n)
					}
				}
				for _, r := range p.Tables.Limits {
					n := countOn(solved.BoxSquares(0), r.Squares)
					if (r.Bound == sdk.AtMost && n > r.Boxes) || (r.Bound == sdk.AtLeast && n < r.Boxes) {
						t.Errorf("region limit %+v fails a solved position (%d boxes)", r, n)
					}
				}
			}
			if p.Checker != nil {
				out := make([]bool, 1)
				if err := p.Checker.Check(ctx, solved, out); err != nil {
					t.Fatalf("Check: %v", err)
				}
				if out[0] {
					t.Error("a solved position is called a deadlock")
				}
				if err := p.Checker.Release(ctx); err != nil {
					t.Errorf("Release: %v", err)
				}
			}
		})
	}
}

func countOn(boxes []uint16, squares []int) int {
	n := 0
	for _, b := range boxes {
		if slices.Contains(squares, int(b)) {
			n++
		}
	}
	return n
}
