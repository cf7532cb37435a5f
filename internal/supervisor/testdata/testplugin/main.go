// Command testplugin is a plugin that misbehaves on purpose, for the host's
// tests. The tests copy it under several names; the name it is run as,
// sokod-plugin-MODE, selects the behaviour:
//
//	good       an admissible Manhattan-distance heuristic that logs each level
//	estimator  a batch heuristic: the number of boxes off goals
//	checker    a batch deadlock detector that is wrong on purpose
//	crashonce  exits during its first Prepare (a marker file remembers), then is good
//	crashy     exits during every Prepare
//	hangs      never answers Prepare
//	garbage    answers Prepare with a cost table of the wrong size
//	chatty     writes to stdout before the handshake
//	misnamed   calls itself "other" in Info
//	planner    a planner that asks the host for one sub-search to the goals,
//	           verifies the moves with the host and returns them
//	slowstart  good, after a second's sleep before it serves
//	startless  sleeps for ever before it serves
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginclient"
	"github.com/sokod/sokod/sdk/pluginserver"
)

func main() {
	mode := strings.TrimPrefix(filepath.Base(os.Args[0]), "sokod-plugin-")
	log := sdk.NewLogger(mode)
	info := sdk.Info{Name: mode, Version: "0.0.1-test", Summary: "test plugin: " + mode,
		Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}}
	var h sdk.Heuristic = manhattan{log: log}
	switch mode {
	case "estimator":
		info.Capabilities = []sdk.Capability{sdk.CapHeuristicEstimate}
		h = offGoals{}
	case "checker":
		info.Capabilities = []sdk.Capability{sdk.CapDeadlockCheck}
		pluginserver.Serve(&sdk.Plugin{Info: info, Deadlocks: sums{}, Logger: log})
		return
	case "crashonce":
		marker := os.Args[0] + ".crashed"
		h = crash{next: h, marker: marker}
	case "crashy":
		h = crash{}
	case "hangs":
		h = hang{}
	case "garbage":
		serveGarbage(info)
		return
	case "chatty":
		fmt.Println("hello from a plugin that should not write here")
	case "misnamed":
		info.Name = "other"
	case "slowstart":
		time.Sleep(time.Second)
	case "startless":
		time.Sleep(1 << 62)
	case "planner":
		info.Capabilities = []sdk.Capability{sdk.CapPlannerHost}
		pluginserver.Serve(&sdk.Plugin{Info: info, Planner: subSearchPlanner{}, Logger: log})
		return
	}
	pluginserver.Serve(&sdk.Plugin{Info: info, Heuristic: h, Logger: log})
}

type manhattan struct {
	log interface{ Info(string, ...any) }
}

func (m manhattan) Prepare(_ context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	m.log.Info("preparing level", "width", l.Width, "height", l.Height)
	t := &sdk.HeuristicTables{Rule: sdk.RuleMatching}
	for s := range l.Squares {
		x, y := l.XY(s)
		for _, g := range l.Goals {
			gx, gy := l.XY(g)
			t.Costs = append(t.Costs, uint16(abs(x-gx)+abs(y-gy)))
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

type offGoals struct{}

func (offGoals) Prepare(_ context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	goal := make([]bool, len(l.Squares))
	for _, g := range l.Goals {
		goal[g] = true
	}
	return &sdk.PreparedHeuristic{Estimator: &offGoalsEstimator{goal: goal}}, nil
}

type offGoalsEstimator struct{ goal []bool }

func (e *offGoalsEstimator) Estimate(_ context.Context, s sdk.States, out []uint32) error {
	for i := range out {
		n := uint32(0)
		for _, b := range s.BoxSquares(i) {
			if !e.goal[b] {
				n++
			}
		}
		out[i] = n
	}
	return nil
}

func (e *offGoalsEstimator) Release(context.Context) error { return nil }

// sums is a batch deadlock detector that is wrong on purpose: it judges a
// position dead when the squares of its boxes sum to a multiple of 5, so
// the host's tests can see that such verdicts prune but prove nothing.
type sums struct{}

func (sums) Prepare(context.Context, *sdk.Level) (*sdk.PreparedDeadlocks, error) {
	return &sdk.PreparedDeadlocks{Checker: sumChecker{}}, nil
}

type sumChecker struct{}

func (sumChecker) Check(_ context.Context, s sdk.States, out []bool) error {
	for i := range out {
		sum := 0
		for _, b := range s.BoxSquares(i) {
			sum += int(b)
		}
		out[i] = sum%5 == 0
	}
	return nil
}

func (sumChecker) Release(context.Context) error { return nil }

type crash struct {
	next   sdk.Heuristic
	marker string
}

func (c crash) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	if c.marker != "" {
		if _, err := os.Stat(c.marker); err == nil {
			return c.next.Prepare(ctx, l)
		}
		_ = os.WriteFile(c.marker, nil, 0o644)
	}
	os.Exit(7)
	return nil, nil
}

type hang struct{}

func (hang) Prepare(context.Context, *sdk.Level) (*sdk.PreparedHeuristic, error) {
	select {} // ignores cancellation too, like a real hang
}

// garbage serves the protocol without the SDK's server side, which would
// refuse to send a malformed table.
type garbage struct {
	plugin.NetRPCUnsupportedPlugin
	pb.UnimplementedPluginServiceServer
	pb.UnimplementedHeuristicServiceServer
	info sdk.Info
}

func (g *garbage) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPluginServiceServer(s, g)
	pb.RegisterHeuristicServiceServer(s, g)
	return nil
}

func (g *garbage) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("server only")
}

func (g *garbage) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return &pb.InfoResponse{Name: g.info.Name, Version: g.info.Version, Kinds: []pb.Kind{pb.Kind_KIND_HEURISTIC},
		Capabilities: []pb.Capability{pb.Capability_CAPABILITY_HEURISTIC_TABLES}}, nil
}

func (g *garbage) PrepareHeuristic(_ context.Context, req *pb.PrepareHeuristicRequest) (*pb.PrepareHeuristicResponse, error) {
	n := len(req.GetLevel().GetSquares()) * len(req.GetLevel().GetGoals())
	return &pb.PrepareHeuristicResponse{Tables: &pb.HeuristicTables{
		Costs: make([]byte, 2*n-2), Rule: pb.CombiningRule_COMBINING_RULE_MATCHING,
	}}, nil
}

func serveGarbage(info sdk.Info) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: pluginclient.Handshake(),
		Plugins:         plugin.PluginSet{pluginclient.PluginSetKey: &garbage{info: info}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}

// subSearchPlanner plans by handing the whole level to the host's
// sub-search, which exercises the host's service through the broker.
type subSearchPlanner struct{}

func (subSearchPlanner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	if host == nil {
		return nil, fmt.Errorf("no host to call")
	}
	start := sdk.NewStates(len(req.Level.Boxes), 1)
	boxes := make([]uint16, len(req.Level.Boxes))
	for i, b := range req.Level.Boxes {
		boxes[i] = uint16(b)
	}
	start.Append(uint16(req.Level.Player), boxes)
	progress(sdk.PlanProgress{Message: "sub-search to the goals"})
	res, err := host.SubSearch(ctx, start, sdk.SubGoal{Targets: req.Level.Goals[:len(boxes)]}, req.Budget)
	if err != nil {
		return nil, err
	}
	progress(sdk.PlanProgress{Nodes: res.Nodes, BoxesOnGoals: len(boxes)})
	if res.Status != sdk.SubGoalReached {
		return &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: fmt.Sprintf("sub-search status %d", res.Status)}, nil
	}
	v, err := host.Verify(ctx, res.Moves)
	if err != nil {
		return nil, err
	}
	if !v.Solved {
		return &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "host rejected the moves: " + v.Error}, nil
	}
	return &sdk.PlanResult{Status: sdk.PlanSolved, Solution: res.Moves}, nil
}
