// Package registry resolves components by name, one namespace for the
// built-in heuristics and planners and the components of the supervised
// plugins: a bare name is the built-in when there is one, else the plugin;
// "plugin:NAME" is always the plugin. It compiles what it resolves to the
// engine's tables (package enginetables), so the solver runs a plugin's
// heuristic exactly as a built-in one.
package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
)

// PluginPrefix qualifies a name as an external plugin's: "plugin:matching"
// is the plugin named matching even though a built-in has that name. A bare
// name means the built-in when there is one, else the plugin.
const PluginPrefix = "plugin:"

// SourceBuiltin is the Source of built-in components.
const SourceBuiltin = "built-in"

// Component describes one registered component for listings.
type Component struct {
	// Name is what --heuristic and the configuration take: the bare name,
	// or PluginPrefix and the name for a plugin whose name a built-in
	// holds.
	Name string `json:"name"`
	// Kind is heuristic, deadlock or planner.
	Kind sdk.Kind `json:"kind"`
	// Version is the plugin's version; "" for built-ins, whose version is
	// sokod's.
	Version string `json:"version"`
	// Source is "built-in" or the plugin binary's path.
	Source string `json:"source"`
	// Summary is one line.
	Summary string `json:"summary"`
	// Capabilities qualify the kind.
	Capabilities []sdk.Capability `json:"capabilities"`
	// State is "ready" for built-ins; a plugin's State otherwise.
	State supervisor.State `json:"state"`
	// Error is the plugin's last failure, if any.
	Error string `json:"error,omitempty"`
}

// Registry resolves components by name across the built-ins and the
// plugins of a Supervisor.
type Registry struct {
	sup *supervisor.Supervisor // nil: built-ins only
	log hclog.Logger
}

// New returns a registry over the built-ins and sup's plugins. sup may be
// nil (built-ins only); log may be nil.
func New(sup *supervisor.Supervisor, log hclog.Logger) *Registry {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Registry{sup: sup, log: log}
}

// List returns every component, built-ins first within each name, sorted
// by kind and name. Shadowed plugins and plugins that never started are
// listed too, with their state.
func (r *Registry) List() []Component {
	var out []Component
	for _, h := range heuristics.All() {
		caps := []sdk.Capability{sdk.CapHeuristicTables}
		if h.Admissible {
			caps = append(caps, sdk.CapAdmissible)
		}
		out = append(out, Component{Name: h.Name, Kind: sdk.KindHeuristic, Source: SourceBuiltin, Summary: h.Summary, Capabilities: caps, State: supervisor.StateReady})
	}
	for _, p := range planners.All() {
		out = append(out, Component{Name: p.Name, Kind: sdk.KindPlanner, Source: SourceBuiltin, Summary: p.Summary, Capabilities: []sdk.Capability{}, State: supervisor.StateReady})
	}
	if r.sup != nil {
		for _, p := range r.sup.Plugins() {
			st := p.Status()
			errText := ""
			if st.LastError != nil {
				errText = st.LastError.Error()
			}
			if st.Info == nil {
				// Never started: all that is known is the binary.
				out = append(out, Component{Name: r.externalName(p.Name(), ""), Source: p.Path(), State: st.State, Error: errText})
				continue
			}
			for _, k := range st.Info.Kinds {
				out = append(out, Component{
					Name: r.externalName(p.Name(), k), Kind: k, Version: st.Info.Version, Source: p.Path(),
					Summary: st.Info.Summary, Capabilities: capsOf(st.Info.Capabilities, k), State: st.State, Error: errText,
				})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Component) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(strings.TrimPrefix(a.Name, PluginPrefix), strings.TrimPrefix(b.Name, PluginPrefix))
	})
	return out
}

// capsOf returns the capabilities of caps that belong to kind k, and those
// of no kind this host knows.
func capsOf(caps []sdk.Capability, k sdk.Kind) []sdk.Capability {
	var out []sdk.Capability
	for _, c := range caps {
		if ck := c.Kind(); ck == k || ck == "" {
			out = append(out, c)
		}
	}
	return out
}

// externalName is the name a plugin's component of kind k is addressed by.
func (r *Registry) externalName(name string, k sdk.Kind) string {
	if (k == sdk.KindHeuristic || k == "") && slices.Contains(heuristics.Names(), name) ||
		(k == sdk.KindPlanner || k == "") && slices.Contains(planners.Names(), name) {
		return PluginPrefix + name
	}
	return name
}

// Planner is a planner resolved by name.
type Planner struct {
	// Name is the resolved name, as Component.Name.
	Name string
	// Source is "built-in" or the plugin binary's path.
	Source string
	// Planner plans; a plugin's runs under supervision.
	Planner sdk.Planner
}

// Planner resolves name to a planner, starting the plugin that provides it
// if it has not been started.
func (r *Registry) Planner(ctx context.Context, name string) (*Planner, error) {
	bare, external := strings.CutPrefix(name, PluginPrefix)
	if !external {
		if spec, err := planners.Lookup(bare); err == nil {
			return &Planner{Name: spec.Name, Source: SourceBuiltin, Planner: spec.New()}, nil
		}
	}
	var p *supervisor.Plugin
	if r.sup != nil {
		p = r.sup.Lookup(bare)
	}
	if p == nil {
		return nil, fmt.Errorf("unknown planner %q (available: %s)", name, strings.Join(r.names(sdk.KindPlanner), ", "))
	}
	if err := p.Start(ctx); err != nil {
		return nil, fmt.Errorf("planner %q: %w", name, err)
	}
	if st := p.Status(); !st.Info.Serves(sdk.KindPlanner) {
		return nil, fmt.Errorf("%q is a plugin without a planner (it serves %v)", name, st.Info.Kinds)
	}
	return &Planner{Name: r.externalName(bare, sdk.KindPlanner), Source: p.Path(), Planner: p.Planner()}, nil
}

// Heuristic is a heuristic resolved by name, ready to compile per level.
type Heuristic struct {
	// Name is the resolved name, as Component.Name.
	Name string
	// Source is "built-in" or the plugin binary's path.
	Source string
	// Admissible is what the component declares before any level is
	// prepared; objective pushes needs it.
	Admissible bool

	builtin *heuristics.Spec
	plugin  *supervisor.Plugin
	log     hclog.Logger
}

// Heuristic resolves name ("" for the default) to a heuristic, starting
// the plugin that provides it if it has not been started.
func (r *Registry) Heuristic(ctx context.Context, name string) (*Heuristic, error) {
	if name == "" {
		name = heuristics.Default
	}
	bare, external := strings.CutPrefix(name, PluginPrefix)
	if !external {
		if spec, err := heuristics.Lookup(bare); err == nil {
			return &Heuristic{Name: spec.Name, Source: SourceBuiltin, Admissible: spec.Admissible, builtin: &spec}, nil
		}
	}
	var p *supervisor.Plugin
	if r.sup != nil {
		p = r.sup.Lookup(bare)
	}
	if p == nil {
		return nil, fmt.Errorf("unknown heuristic %q (available: %s)", name, strings.Join(r.names(sdk.KindHeuristic), ", "))
	}
	if err := p.Start(ctx); err != nil {
		return nil, fmt.Errorf("heuristic %q: %w", name, err)
	}
	st := p.Status()
	if !st.Info.Serves(sdk.KindHeuristic) {
		return nil, fmt.Errorf("%q is a plugin without a heuristic (it serves %v)", name, st.Info.Kinds)
	}
	return &Heuristic{Name: r.externalName(bare, sdk.KindHeuristic), Source: p.Path(), Admissible: st.Info.Has(sdk.CapAdmissible), plugin: p, log: r.log}, nil
}

// names lists the addressable names of kind k, and those of plugins not
// started yet, whose kinds are not known.
func (r *Registry) names(k sdk.Kind) []string {
	var out []string
	for _, c := range r.List() {
		if c.Kind == k || (c.Kind == "" && c.State == supervisor.StateStopped) {
			out = append(out, c.Name)
		}
	}
	return out
}

// Prepare compiles the heuristic for one analysed board. For a plugin that
// is one supervised call; its answer must agree with what it declared
// (admissibility), or it is refused.
func (h *Heuristic) Prepare(ctx context.Context, b *engine.Board) (*engine.Heuristic, error) {
	if h.builtin != nil {
		return h.builtin.Prepare(b)
	}
	start := time.Now()
	prep, err := h.plugin.Heuristic().Prepare(ctx, sdk.LevelFromBoard(b))
	if err != nil {
		return nil, err
	}
	h.log.Debug("heuristic prepared", "heuristic", h.Name, "squares", b.Squares, "goals", len(b.Goals),
		"tables", prep.Tables != nil, "elapsed", time.Since(start))
	if prep.Admissible != h.Admissible {
		release(ctx, prep.Estimator)
		return nil, &supervisor.Error{Plugin: h.plugin.Name(), Op: "prepare heuristic", Kind: supervisor.ErrGarbage,
			Err: fmt.Errorf("declared admissible=%v but prepared admissible=%v", h.Admissible, prep.Admissible)}
	}
	if prep.Tables != nil {
		// Tables run natively: an estimator besides them is not needed.
		release(ctx, prep.Estimator)
		prep.Estimator = nil
	}
	return enginetables.Heuristic(h.Name, b, prep)
}

// release frees a plugin session the search will not use (a nil
// sdk.Estimator or sdk.Checker is nothing to free). The plugin forgets
// sessions with its process anyway, so a failure is only logged by the
// supervisor.
func release(ctx context.Context, r interface{ Release(context.Context) error }) {
	if r != nil {
		_ = r.Release(ctx)
	}
}

// Deadlocks is a deadlock detector resolved by name, ready to compile per
// level. The engine's own detectors (dead squares, freeze, corrals,
// bipartite matching) always run; these add to them.
type Deadlocks struct {
	// Name is the resolved name, as Component.Name.
	Name string
	// Source is the plugin binary's path.
	Source string

	plugin *supervisor.Plugin
}

// Deadlocks resolves name to a plugin's deadlock detector, starting the
// plugin if it has not been started. Its tables run natively in the
// search; a checker answers in batches.
func (r *Registry) Deadlocks(ctx context.Context, name string) (*Deadlocks, error) {
	bare := strings.TrimPrefix(name, PluginPrefix)
	var p *supervisor.Plugin
	if r.sup != nil {
		p = r.sup.Lookup(bare)
	}
	if p == nil {
		return nil, fmt.Errorf("unknown deadlock detector %q (available: %s)", name, strings.Join(r.names(sdk.KindDeadlock), ", "))
	}
	if err := p.Start(ctx); err != nil {
		return nil, fmt.Errorf("deadlock detector %q: %w", name, err)
	}
	st := p.Status()
	if !st.Info.Serves(sdk.KindDeadlock) {
		return nil, fmt.Errorf("%q is a plugin without a deadlock detector (it serves %v)", name, st.Info.Kinds)
	}
	return &Deadlocks{Name: r.externalName(bare, sdk.KindDeadlock), Source: p.Path(), plugin: p}, nil
}

// Prepare compiles the detector for one analysed board: one supervised
// call.
func (d *Deadlocks) Prepare(ctx context.Context, b *engine.Board) (*engine.Deadlocks, error) {
	prep, err := d.plugin.Deadlocks().Prepare(ctx, sdk.LevelFromBoard(b))
	if err != nil {
		return nil, err
	}
	if prep.Tables == nil && prep.Checker == nil {
		return nil, fmt.Errorf("deadlock detector %s answered with neither tables nor a checker", d.Name)
	}
	out := &engine.Deadlocks{Name: d.Name}
	if prep.Tables != nil {
		out = enginetables.Deadlocks(d.Name, prep.Tables)
	}
	if prep.Checker != nil {
		// Untrusted like the tables: the search prunes by its verdicts
		// but claims no proof that rests on them.
		out.Checker = enginetables.Checker{Checker: prep.Checker}
	}
	return out, nil
}
