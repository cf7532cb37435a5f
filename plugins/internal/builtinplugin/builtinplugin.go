// Package builtinplugin serves sokod's built-in components as plugins, so
// every built-in also exists as an external plugin binary: a reference for
// plugin authors, and the measure of what the plugin boundary costs (the
// same tables, computed in another process).
//
// Plugin mains may import internal packages, since they are part of this
// module; the SDK may not, and this package is where the two meet.
package builtinplugin

import (
	"context"
	"fmt"
	"os"

	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/pluginhost/enginetables"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginserver"
)

// Heuristic is a built-in heuristic behind the SDK's interface.
type Heuristic struct {
	Spec heuristics.Spec
}

// Prepare analyses the level as the engine does and compiles the built-in
// heuristic to tables, the player-side refinement included.
func (h Heuristic) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	b, err := l.Analyze(ctx)
	if err != nil {
		return nil, err
	}
	eh, err := h.Spec.Prepare(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.Spec.Name, err)
	}
	t, err := enginetables.Tables(b, eh)
	if err != nil {
		return nil, err
	}
	return &sdk.PreparedHeuristic{Admissible: eh.Admissible, Tables: t}, nil
}

// ServeHeuristic is the main of the plugin serving the built-in heuristic
// name.
func ServeHeuristic(name, version string) {
	logger := sdk.NewLogger(name)
	spec, err := heuristics.Lookup(name)
	if err != nil {
		logger.Error("no such built-in", "error", err)
		os.Exit(1)
	}
	pluginserver.Serve(&sdk.Plugin{
		Info:      HeuristicInfo(spec, version),
		Heuristic: Heuristic{Spec: spec},
		Logger:    logger,
	})
}

// HeuristicInfo describes the plugin serving spec.
func HeuristicInfo(spec heuristics.Spec, version string) sdk.Info {
	caps := []sdk.Capability{sdk.CapHeuristicTables}
	if spec.Admissible {
		caps = append(caps, sdk.CapAdmissible)
	}
	return sdk.Info{Name: spec.Name, Version: version, Summary: spec.Summary + " [built-in served as a plugin]", Capabilities: caps}
}

// DeadSquares is the engine's dead-square analysis behind the SDK's
// deadlock detector interface: the squares from which a lone box can reach
// no goal, compiled to DeadlockTables.DeadSquares. The engine's other
// deadlock tests (frozen boxes, bipartite matching, PI-corrals) depend on
// the whole position and do not compile to tables, so they stay inside the
// search.
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

// ServeDeadSquares is the main of the plugin serving DeadSquares.
func ServeDeadSquares(version string) {
	const name = "deadsquares"
	pluginserver.Serve(&sdk.Plugin{
		Info: sdk.Info{Name: name, Version: version,
			Summary:      "squares from which a lone box reaches no goal [built-in served as a plugin]",
			Capabilities: []sdk.Capability{sdk.CapDeadlockTables}},
		Deadlocks: DeadSquares{},
		Logger:    sdk.NewLogger(name),
	})
}
