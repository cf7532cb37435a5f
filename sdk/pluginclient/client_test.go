package pluginclient_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginclient"
	"github.com/sokod/sokod/sdk/pluginserver"
	"github.com/sokod/sokod/sdk/plugintest"
	"github.com/sokod/sokod/sokoban"
)

// testXSB has 2 boxes and 2 goals; its interior is numbered row by row:
//
//	#######
//	#@ $ .#   squares 0..4   (player 0, box 2, goal 4)
//	# $ . #   squares 5..9   (box 6, goal 8)
//	#######
const testXSB = "#######\n#@ $ .#\n# $ . #\n#######\n"

func testLevel(t testing.TB) *sdk.Level {
	t.Helper()
	sl, err := sokoban.Parse(testXSB)
	if err != nil {
		t.Fatal(err)
	}
	l, err := sdk.LevelFromSokoban(sl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// manhattan compiles to a cost table of Manhattan distances.
type manhattan struct{}

func (manhattan) Prepare(_ context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	t := &sdk.HeuristicTables{Rule: sdk.RuleMatching, Penalties: []sdk.Penalty{{Squares: []int{1, 2}, Cost: 3}}}
	for s := range l.Squares {
		x, y := l.XY(s)
		for _, g := range l.Goals {
			gx, gy := l.XY(g)
			t.Costs = append(t.Costs, uint16(abs(x-gx)+abs(y-gy)))
		}
	}
	// Side costs: the plain costs, plus one per side number, so that every
	// row differs.
	for s := range l.Squares {
		for k := range sdk.Sides {
			for g := range l.Goals {
				t.SideCosts = append(t.SideCosts, t.Costs[s*len(l.Goals)+g]+uint16(k))
			}
		}
	}
	return &sdk.PreparedHeuristic{Admissible: true, Tables: t}, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// offGoals is a batch heuristic: the number of boxes off goals, or DeadEnd
// when a box stands on square 0.
type offGoals struct{}

func (offGoals) Prepare(_ context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	return &sdk.PreparedHeuristic{Estimator: &offGoalsEstimator{goals: l.Goals}}, nil
}

type offGoalsEstimator struct{ goals []int }

func (e *offGoalsEstimator) Estimate(_ context.Context, s sdk.States, out []uint32) error {
	for i := range out {
		for _, b := range s.BoxSquares(i) {
			if b == 0 {
				out[i] = sdk.DeadEnd
				break
			}
			if !slices.Contains(e.goals, int(b)) {
				out[i]++
			}
		}
	}
	return nil
}

func (e *offGoalsEstimator) Release(context.Context) error { return nil }

// corners returns fixed tables and checks that no box is on square 9.
type corners struct{}

func (corners) Prepare(context.Context, *sdk.Level) (*sdk.PreparedDeadlocks, error) {
	return &sdk.PreparedDeadlocks{
		Tables: &sdk.DeadlockTables{
			DeadSquares: []int{0, 5},
			Sets:        []sdk.DeadlockSet{{Squares: []int{1, 6}, Capacity: 1, LastPush: sdk.Down}},
			Limits:      []sdk.RegionLimit{{Squares: []int{3, 4}, Bound: sdk.AtMost, Boxes: 1}},
		},
		Checker: square9{},
	}, nil
}

type square9 struct{}

func (square9) Check(_ context.Context, s sdk.States, out []bool) error {
	for i := range out {
		out[i] = slices.Contains(s.BoxSquares(i), 9)
	}
	return nil
}

func (square9) Release(context.Context) error { return nil }

// prober is a planner that calls every Host method once and reports what
// it got as the result's reason.
type prober struct{}

func (prober) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	progress(sdk.PlanProgress{Nodes: 1, Message: "starting"})
	start := sdk.NewStates(len(req.Level.Boxes), 1)
	start.Append(uint16(req.Level.Player), toU16(req.Level.Boxes))
	pl, err := host.LegalPushes(ctx, start)
	if err != nil {
		return nil, err
	}
	reach, err := host.Reachable(ctx, start)
	if err != nil {
		return nil, err
	}
	dead := make([]bool, 1)
	if err := host.Deadlocked(ctx, start, dead); err != nil {
		return nil, err
	}
	sub, err := host.SubSearch(ctx, start, sdk.SubGoal{Targets: req.Level.Goals}, sdk.Budget{Nodes: 100})
	if err != nil {
		return nil, err
	}
	v, err := host.Verify(ctx, "rRR")
	if err != nil {
		return nil, err
	}
	progress(sdk.PlanProgress{Nodes: 2, BoxesOnGoals: 1})
	reason := fmt.Sprintf("pushes %v %v results %v; reach 0:%v 4:%v; dead %v; sub %v %v end %v; verify %v %d; budget %v",
		pl.Counts, pl.Pushes, pl.Results.Data, reach.Has(0, 0), reach.Has(0, 4), dead, sub.Status, sub.Pushes, sub.End.Data, v.Solved, v.Pushes, req.Budget.Time)
	return &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: reason}, nil
}

func toU16(s []int) []uint16 {
	out := make([]uint16, len(s))
	for i, v := range s {
		out[i] = uint16(v)
	}
	return out
}

// fakeHost answers with fixed values and records the positions it got.
type fakeHost struct{ got []uint16 }

func (h *fakeHost) LegalPushes(_ context.Context, s sdk.States) (*sdk.PushList, error) {
	h.got = slices.Clone(s.Data)
	res := sdk.NewStates(s.Boxes, 1)
	res.Append(1, []uint16{3, 6})
	return &sdk.PushList{Counts: []int{1}, Pushes: []sdk.Push{{Box: 2, Dir: sokoban.Right}}, Results: res}, nil
}

func (h *fakeHost) Reachable(_ context.Context, s sdk.States) (sdk.SquareSets, error) {
	return sdk.SquareSets{Squares: 10, Bits: []byte{0b0000_0011, 0}}, nil
}

func (h *fakeHost) Deadlocked(_ context.Context, _ sdk.States, out []bool) error {
	out[0] = true
	return nil
}

func (h *fakeHost) SubSearch(_ context.Context, start sdk.States, goal sdk.SubGoal, b sdk.Budget) (*sdk.SubSearchResult, error) {
	end := sdk.NewStates(start.Boxes, 1)
	end.Append(3, []uint16{4, 8})
	return &sdk.SubSearchResult{Status: sdk.SubGoalReached, Pushes: []sdk.Push{{Box: 2, Dir: sokoban.Right}, {Box: 6, Dir: sokoban.Right}}, End: end, Nodes: b.Nodes}, nil
}

func (h *fakeHost) Verify(_ context.Context, solution string) (*sdk.Verification, error) {
	return &sdk.Verification{Solved: false, Error: "not solved", Pushes: 2}, nil
}

// connect serves p in-process and returns the host's client for it.
func connect(t *testing.T, p *sdk.Plugin) (*pluginclient.Client, *plugin.GRPCClient) {
	t.Helper()
	return plugintest.ConnectRaw(t, p)
}

func TestInfo(t *testing.T) {
	c, _ := connect(t, &sdk.Plugin{
		Info:      sdk.Info{Name: "probe", Version: "0.1", Summary: "for tests", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible, sdk.CapDeadlockCheck, sdk.CapPlannerHost}},
		Heuristic: manhattan{},
		Deadlocks: corners{},
		Planner:   prober{},
	})
	got, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.Info{
		Name: "probe", Version: "0.1", Summary: "for tests",
		Kinds:        []sdk.Kind{sdk.KindHeuristic, sdk.KindDeadlock, sdk.KindPlanner},
		Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible, sdk.CapDeadlockCheck, sdk.CapPlannerHost},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
}

func TestPluginSetRejects(t *testing.T) {
	tests := []struct {
		name string
		p    sdk.Plugin
	}{
		{"bad name", sdk.Plugin{Info: sdk.Info{Name: "Bad Name", Capabilities: []sdk.Capability{sdk.CapHeuristicTables}}, Heuristic: manhattan{}}},
		{"no component", sdk.Plugin{Info: sdk.Info{Name: "empty"}}},
		{"kinds disagree", sdk.Plugin{Info: sdk.Info{Name: "x", Kinds: []sdk.Kind{sdk.KindPlanner}, Capabilities: []sdk.Capability{sdk.CapHeuristicTables}}, Heuristic: manhattan{}}},
		{"capability of another kind", sdk.Plugin{Info: sdk.Info{Name: "x", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapDeadlockTables}}, Heuristic: manhattan{}}},
		{"heuristic without a form", sdk.Plugin{Info: sdk.Info{Name: "x", Capabilities: []sdk.Capability{sdk.CapAdmissible}}, Heuristic: manhattan{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := pluginserver.PluginSet(&tt.p); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestHeuristicTables(t *testing.T) {
	c, _ := connect(t, &sdk.Plugin{Info: sdk.Info{Name: "m", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}}, Heuristic: manhattan{}})
	l := testLevel(t)
	want, err := manhattan{}.Prepare(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Heuristic().Prepare(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Prepare (-want +got):\n%s", diff)
	}
}

func TestEstimate(t *testing.T) {
	ctx := context.Background()
	c, _ := connect(t, &sdk.Plugin{Info: sdk.Info{Name: "off", Capabilities: []sdk.Capability{sdk.CapHeuristicEstimate}}, Heuristic: offGoals{}})
	l := testLevel(t)
	h, err := c.Heuristic().Prepare(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if h.Tables != nil || h.Estimator == nil || h.Admissible {
		t.Fatalf("Prepare = %+v, want an inadmissible estimator", h)
	}
	s := sdk.NewStates(2, 3)
	s.Append(0, []uint16{2, 6}) // both off goals
	s.Append(1, []uint16{4, 6}) // one on a goal
	s.Append(1, []uint16{0, 8}) // a box on square 0
	out := make([]uint32, s.Len())
	if err := h.Estimator.Estimate(ctx, s, out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint32{2, 1, sdk.DeadEnd}, out); diff != "" {
		t.Errorf("Estimate (-want +got):\n%s", diff)
	}

	bad := sdk.States{Boxes: 2, Data: []uint16{0, 2, 99}}
	if err := h.Estimator.Estimate(ctx, bad, make([]uint32, 1)); !errors.Is(err, sdk.ErrBadRequest) {
		t.Errorf("square out of range: %v, want ErrBadRequest", err)
	}
	if err := h.Estimator.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Estimator.Estimate(ctx, s, out); !errors.Is(err, sdk.ErrUnknownSession) {
		t.Errorf("after release: %v, want ErrUnknownSession", err)
	}
}

func TestDeadlocks(t *testing.T) {
	ctx := context.Background()
	c, _ := connect(t, &sdk.Plugin{Info: sdk.Info{Name: "c", Capabilities: []sdk.Capability{sdk.CapDeadlockTables, sdk.CapDeadlockCheck}}, Deadlocks: corners{}})
	l := testLevel(t)
	d, err := c.Deadlocks().Prepare(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := corners{}.Prepare(ctx, l)
	if diff := cmp.Diff(want.Tables, d.Tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	s := sdk.NewStates(2, 2)
	s.Append(0, []uint16{2, 9})
	s.Append(0, []uint16{2, 6})
	out := make([]bool, 2)
	if err := d.Checker.Check(ctx, s, out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{true, false}, out); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if err := d.Checker.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPlanThroughBroker(t *testing.T) {
	c, _ := connect(t, &sdk.Plugin{Info: sdk.Info{Name: "p", Capabilities: []sdk.Capability{sdk.CapPlannerHost}}, Planner: prober{}})
	l := testLevel(t)
	host := &fakeHost{}
	var events []sdk.PlanProgress
	res, err := c.Planner().Plan(context.Background(), &sdk.PlanRequest{Level: l, Budget: sdk.Budget{Time: 2 * time.Second}}, host, func(p sdk.PlanProgress) {
		events = append(events, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "pushes [1] [{2 right}] results [1 3 6]; reach 0:true 4:false; dead [true]; " +
		"sub 1 [{2 right} {6 right}] end [3 4 8]; verify false 2; budget 2s"}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sdk.PlanProgress{{Nodes: 1, Message: "starting"}, {Nodes: 2, BoxesOnGoals: 1}}, events); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint16{0, 2, 6}, host.got); diff != "" {
		t.Errorf("host saw (-want +got):\n%s", diff)
	}
}

func TestBadLevelRefused(t *testing.T) {
	_, client := connect(t, &sdk.Plugin{Info: sdk.Info{Name: "m", Capabilities: []sdk.Capability{sdk.CapHeuristicTables}}, Heuristic: manhattan{}})
	raw := pb.NewHeuristicServiceClient(client.Conn)
	tests := []struct {
		name  string
		level *pb.Level
	}{
		{"none", nil},
		{"squares out of order", &pb.Level{Width: 3, Height: 1, Squares: []uint32{1, 0}, Goals: []uint32{1}, Boxes: []uint32{1}}},
		{"more boxes than goals", &pb.Level{Width: 3, Height: 1, Squares: []uint32{0, 1, 2}, Goals: []uint32{1}, Boxes: []uint32{1, 2}}},
		{"goal off the squares", &pb.Level{Width: 3, Height: 1, Squares: []uint32{0, 1, 2}, Goals: []uint32{7}, Boxes: []uint32{1}}},
		{"player on a box", &pb.Level{Width: 3, Height: 1, Squares: []uint32{0, 1, 2}, Goals: []uint32{2}, Boxes: []uint32{1}, Player: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := raw.PrepareHeuristic(context.Background(), &pb.PrepareHeuristicRequest{Level: tt.level})
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("got %v, want InvalidArgument", err)
			}
		})
	}
}

// garbage answers PrepareHeuristic with a fixed response, as a broken
// plugin written without the SDK might.
type garbage struct {
	pb.UnimplementedHeuristicServiceServer
	pb.UnimplementedPluginServiceServer
	resp *pb.PrepareHeuristicResponse
	info *pb.InfoResponse
}

func (g *garbage) PrepareHeuristic(context.Context, *pb.PrepareHeuristicRequest) (*pb.PrepareHeuristicResponse, error) {
	return g.resp, nil
}

func (g *garbage) Estimate(context.Context, *pb.EstimateRequest) (*pb.EstimateResponse, error) {
	return &pb.EstimateResponse{Estimates: []uint32{1}}, nil
}

func (g *garbage) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return g.info, nil
}

func TestGarbageAnswers(t *testing.T) {
	l := testLevel(t) // 10 squares, 2 goals
	costs := make([]byte, 2*10*2)
	tests := []struct {
		name string
		resp *pb.PrepareHeuristicResponse
	}{
		{"nothing", &pb.PrepareHeuristicResponse{}},
		{"both forms", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs, Rule: pb.CombiningRule_COMBINING_RULE_MATCHING}, Session: 1}},
		{"short table", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs[:38], Rule: pb.CombiningRule_COMBINING_RULE_MATCHING}}},
		{"odd table", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs[:39], Rule: pb.CombiningRule_COMBINING_RULE_MATCHING}}},
		{"no rule", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs}}},
		{"unknown rule", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs, Rule: 9}}},
		{"short side table", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs, Rule: pb.CombiningRule_COMBINING_RULE_MATCHING,
			SideCosts: make([]byte, 2*10*4*2-2)}}},
		{"penalty off the board", &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{Costs: costs, Rule: pb.CombiningRule_COMBINING_RULE_GREEDY,
			Penalties: []*pb.Penalty{{Squares: []uint32{10}, Cost: 1}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, server := plugin.TestGRPCConn(t, func(s *grpc.Server) {
				pb.RegisterHeuristicServiceServer(s, &garbage{resp: tt.resp})
			})
			defer conn.Close()
			defer server.Stop()
			_, err := pluginclient.New(conn, nil).Heuristic().Prepare(context.Background(), l)
			if !errors.Is(err, sdk.ErrBadAnswer) {
				t.Errorf("got %v, want ErrBadAnswer", err)
			}
		})
	}

	t.Run("estimates short", func(t *testing.T) {
		conn, server := plugin.TestGRPCConn(t, func(s *grpc.Server) {
			pb.RegisterHeuristicServiceServer(s, &garbage{resp: &pb.PrepareHeuristicResponse{Session: 1}})
		})
		defer conn.Close()
		defer server.Stop()
		h, err := pluginclient.New(conn, nil).Heuristic().Prepare(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		s := sdk.NewStates(2, 2)
		s.Append(0, []uint16{2, 6})
		s.Append(0, []uint16{2, 6})
		if err := h.Estimator.Estimate(context.Background(), s, make([]uint32, 2)); !errors.Is(err, sdk.ErrBadAnswer) {
			t.Errorf("got %v, want ErrBadAnswer", err)
		}
	})

	t.Run("info", func(t *testing.T) {
		for _, info := range []*pb.InfoResponse{
			{Name: "ok", Kinds: []pb.Kind{99}},
			{Name: "", Kinds: []pb.Kind{pb.Kind_KIND_PLANNER}},
			{Name: "nokinds"},
		} {
			conn, server := plugin.TestGRPCConn(t, func(s *grpc.Server) {
				pb.RegisterPluginServiceServer(s, &garbage{info: info})
			})
			_, err := pluginclient.New(conn, nil).Info(context.Background())
			if !errors.Is(err, sdk.ErrBadAnswer) {
				t.Errorf("Info %v: got %v, want ErrBadAnswer", info, err)
			}
			conn.Close()
			server.Stop()
		}
	})
}
