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

	"github.com/sokod/sokod/internal/builtin"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// Heuristic is a built-in heuristic behind the SDK's interface.
type Heuristic struct {
	Spec builtin.HeuristicSpec
}

// Prepare analyses the level as the engine does and compiles the built-in
// heuristic to tables.
func (h Heuristic) Prepare(_ context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	b, err := Board(l)
	if err != nil {
		return nil, err
	}
	eh, err := h.Spec.Prepare(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.Spec.Name, err)
	}
	var rule sdk.Rule
	switch eh.Rule {
	case engine.RuleSumMin:
		rule = sdk.RuleSumOfMinima
	case engine.RuleGreedy:
		rule = sdk.RuleGreedy
	case engine.RuleMatching:
		rule = sdk.RuleMatching
	default:
		return nil, fmt.Errorf("%s: rule %v has no protocol equivalent", h.Spec.Name, eh.Rule)
	}
	// The engine may append a sentinel row for the wall square; the
	// protocol's table has exactly one row per square.
	n := len(l.Squares) * len(l.Goals)
	return &sdk.PreparedHeuristic{
		Admissible: eh.Admissible,
		Tables:     &sdk.HeuristicTables{Costs: eh.Costs[:n:n], Rule: rule},
	}, nil
}

// Board analyses a protocol level with the engine, checking that the
// engine numbers its squares, goals and boxes exactly as the host did;
// tables indexed any other way would be silently wrong.
func Board(l *sdk.Level) (*engine.Board, error) {
	sl, err := sokoban.Parse(l.XSBFromSquares())
	if err != nil {
		return nil, fmt.Errorf("%w: level does not parse: %w", sdk.ErrBadRequest, err)
	}
	b, err := engine.Analyze(sl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadRequest, err)
	}
	if b.Squares != len(l.Squares) || len(b.Goals) != len(l.Goals) || len(b.StartBoxes) != len(l.Boxes) {
		return nil, fmt.Errorf("numbering differs: engine has %d squares, %d goals, %d boxes; host sent %d, %d, %d",
			b.Squares, len(b.Goals), len(b.StartBoxes), len(l.Squares), len(l.Goals), len(l.Boxes))
	}
	for i, c := range l.Squares {
		if int(b.Cell[i]) != c {
			return nil, fmt.Errorf("numbering differs: engine square %d is cell %d, host's is cell %d", i, b.Cell[i], c)
		}
	}
	for i, g := range l.Goals {
		if int(b.Goals[i]) != g {
			return nil, fmt.Errorf("numbering differs: engine goal %d is square %d, host's is %d", i, b.Goals[i], g)
		}
	}
	return b, nil
}

// ServeHeuristic is the main of the plugin serving the built-in heuristic
// name.
func ServeHeuristic(name, version string) {
	logger := sdk.NewLogger(name)
	spec, err := builtin.LookupHeuristic(name)
	if err != nil {
		logger.Error("no such built-in", "error", err)
		os.Exit(1)
	}
	sdk.Serve(&sdk.Plugin{
		Info:      HeuristicInfo(spec, version),
		Heuristic: Heuristic{Spec: spec},
		Logger:    logger,
	})
}

// HeuristicInfo describes the plugin serving spec.
func HeuristicInfo(spec builtin.HeuristicSpec, version string) sdk.Info {
	caps := []sdk.Capability{sdk.CapHeuristicTables}
	if spec.Admissible {
		caps = append(caps, sdk.CapAdmissible)
	}
	return sdk.Info{Name: spec.Name, Version: version, Summary: spec.Summary + " [built-in served as a plugin]", Capabilities: caps}
}
