// Package builtinplugin serves sokod's built-in components as plugins, so
// every built-in also exists as an external plugin binary: a reference for
// plugin authors, and the measure of what the plugin boundary costs (the
// same tables, or the same planner, in another process). Every plugin main
// under plugins/ that wraps a built-in is one line:
//
//	func main() { builtinplugin.Serve("matching", version) }
//
// Plugin mains may import internal packages, since they are part of this
// module; the SDK may not, and this package is where the two meet.
package builtinplugin

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginserver"
)

// DeadSquaresName is the name of the plugin serving DeadSquares.
const DeadSquaresName = "deadsquares"

// BatchSuffix names the plugin serving a built-in heuristic in batches
// (BatchHeuristic): "matching-batch" is the matching bound answered
// through Estimate calls, the measure of what the batch path costs.
const BatchSuffix = "-batch"

// servedAs marks a summary as a built-in's, served by a plugin binary.
const servedAs = " [built-in served as a plugin]"

// Serve is the main of the plugin serving the built-in called name, a
// heuristic (or one with BatchSuffix), DeadSquaresName or a planner; it returns when the host is done
// with it, and exits with status 1 when there is no such built-in.
func Serve(name, version string) {
	logger := sdk.NewLogger(name)
	p, err := Plugin(name, version)
	if err != nil {
		logger.Error("no such built-in", "error", err)
		os.Exit(1)
	}
	p.Logger = logger
	pluginserver.Serve(p)
}

// Plugin returns the plugin serving the built-in called name.
func Plugin(name, version string) (*sdk.Plugin, error) {
	if spec, err := heuristics.Lookup(name); err == nil && name != "" {
		caps := []sdk.Capability{sdk.CapHeuristicTables}
		if spec.Admissible {
			caps = append(caps, sdk.CapAdmissible)
		}
		return &sdk.Plugin{
			Info:      sdk.Info{Name: spec.Name, Version: version, Summary: spec.Summary + servedAs, Capabilities: caps},
			Heuristic: Heuristic{Spec: spec},
		}, nil
	}
	if spec, err := planners.Lookup(name); err == nil {
		return &sdk.Plugin{
			Info:    sdk.Info{Name: spec.Name, Version: version, Summary: spec.Summary + servedAs, Capabilities: []sdk.Capability{sdk.CapPlannerHost}},
			Planner: spec.New(),
		}, nil
	}
	if base, ok := strings.CutSuffix(name, BatchSuffix); ok {
		if spec, err := heuristics.Lookup(base); err == nil && base != "" {
			caps := []sdk.Capability{sdk.CapHeuristicEstimate}
			if spec.Admissible {
				caps = append(caps, sdk.CapAdmissible)
			}
			return &sdk.Plugin{
				Info: sdk.Info{Name: name, Version: version, Summary: spec.Summary + ", answered in batches" + servedAs,
					Capabilities: caps},
				Heuristic: BatchHeuristic{Spec: spec},
			}, nil
		}
	}
	if name == DeadSquaresName {
		return &sdk.Plugin{
			Info: sdk.Info{Name: name, Version: version, Summary: "squares from which a lone box reaches no goal" + servedAs,
				Capabilities: []sdk.Capability{sdk.CapDeadlockTables}},
			Deadlocks: DeadSquares{},
		}, nil
	}
	return nil, fmt.Errorf("no built-in %q (built-in: %v)", name, Names())
}

// Names lists the built-ins Serve serves, sorted.
func Names() []string {
	names := append(heuristics.Names(), planners.Names()...)
	for _, h := range heuristics.Names() {
		names = append(names, h+BatchSuffix)
	}
	names = append(names, DeadSquaresName)
	slices.Sort(names)
	return names
}

// Heuristic is a built-in heuristic behind the SDK's interface.
type Heuristic struct {
	Spec heuristics.Spec
}

// Prepare analyses the level as the engine does and compiles the built-in
// heuristic to tables, the player-side refinement included.
func (h Heuristic) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	b, eh, err := compile(ctx, h.Spec, l)
	if err != nil {
		return nil, err
	}
	t, err := enginetables.Tables(b, eh)
	if err != nil {
		return nil, err
	}
	return &sdk.PreparedHeuristic{Admissible: eh.Admissible, Tables: t}, nil
}

// compile analyses the level as the engine does and compiles the built-in
// heuristic of spec for it.
func compile(ctx context.Context, spec heuristics.Spec, l *sdk.Level) (*board.Board, *engine.Heuristic, error) {
	b, err := l.Analyze(ctx)
	if err != nil {
		return nil, nil, err
	}
	eh, err := spec.Prepare(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	return b, eh, nil
}

// BatchHeuristic is a built-in heuristic behind the SDK's batch interface:
// Prepare compiles the tables in the plugin and answers with an Estimator
// that evaluates them position by position, as a learned model or any
// other knowledge that cannot compile would answer.
type BatchHeuristic struct {
	Spec heuristics.Spec
}

// Prepare analyses the level and compiles the built-in heuristic for the
// estimator.
func (h BatchHeuristic) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	b, eh, err := compile(ctx, h.Spec, l)
	if err != nil {
		return nil, err
	}
	ev, err := engine.NewEvaluator(b, eh)
	if err != nil {
		return nil, err
	}
	return &sdk.PreparedHeuristic{Admissible: eh.Admissible, Estimator: &estimator{ev: ev}}, nil
}

// estimator evaluates one level's compiled heuristic; calls are serialised,
// since the evaluator carries the last position over to the next.
type estimator struct {
	mu sync.Mutex
	ev *engine.Evaluator
}

func (e *estimator) Estimate(ctx context.Context, states sdk.States, out []uint32) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range out {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v, ok, err := e.ev.Bound(states.BoxSquares(i), states.Player(i))
		switch {
		case err != nil:
			return fmt.Errorf("position %d: %w", i, err)
		case !ok:
			out[i] = sdk.DeadEnd
		default:
			out[i] = uint32(v)
		}
	}
	return nil
}

func (e *estimator) Release(context.Context) error { return nil }

// DeadSquares is the board's dead-square analysis behind the SDK's
// deadlock detector interface: the squares from which a lone box can reach
// no goal, compiled to DeadlockTables.DeadSquares. The engine's other
// deadlock tests depend on the whole position and do not compile to
// tables, so they stay inside the search.
type DeadSquares struct{}

// Prepare analyses the level and lists its dead squares.
func (DeadSquares) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedDeadlocks, error) {
	b, err := l.Analyze(ctx)
	if err != nil {
		return nil, err
	}
	t := &sdk.DeadlockTables{DeadSquares: []int{}}
	for sq := range b.Squares {
		if b.Dead[sq] && b.GoalIndex[sq] < 0 {
			t.DeadSquares = append(t.DeadSquares, sq)
		}
	}
	return &sdk.PreparedDeadlocks{Tables: t}, nil
}
