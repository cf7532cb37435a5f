package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/sokoban"
)

// solveOutput is the "sokod solve --json" document.
type solveOutput struct {
	File  string `json:"file"`
	Level int    `json:"level"`
	Title string `json:"title"`
	// Status is "solved", "unsolvable" or "gave_up".
	Status string `json:"status"`
	// Reason says why the search gave up or why the level is unsolvable.
	Reason string `json:"reason,omitempty"`
	// Solution is the LURD text; empty unless solved.
	Solution   string `json:"solution"`
	Moves      int    `json:"moves"`
	Pushes     int    `json:"pushes"`
	BoxLines   int    `json:"box_lines"`
	BoxChanges int    `json:"box_changes"`
	// Optimal is true when the solution is proved push-optimal.
	Optimal bool `json:"optimal"`
	// FoundBy names the component that settled the level: the heuristic
	// for the exhaustive search, else a planner; "" when none did.
	FoundBy string `json:"found_by"`
	// Phase is "search" or "plan": where FoundBy ran.
	Phase string `json:"phase,omitempty"`
	// Nodes and Stored are the exhaustive search's.
	Nodes   int64   `json:"nodes"`
	Stored  int64   `json:"stored"`
	Seconds float64 `json:"seconds"`
	// Batches counts the search's calls to components that answer in
	// batches, BatchWaitSeconds the time it waited for them; absent
	// without such components.
	Batches          int64   `json:"batches,omitempty"`
	BatchWaitSeconds float64 `json:"batch_wait_seconds,omitempty"`
	Heuristic        string  `json:"heuristic"`
	Objective        string  `json:"objective"`
	// Runs lists every component run, in order.
	Runs []solver.Run `json:"runs"`
}

// solveSettings are the options of one solve shared by solve and bench.
type solveSettings struct {
	objective   engine.Objective
	strategy    engine.Strategy
	off         engine.Techniques
	heuristic   *registry.Heuristic
	deadlocks   []solver.Deadlocks
	planners    []solver.Planner
	searchShare int
	// plannerShare is fallback.planner_share.
	plannerShare int
	portfolio    bool
	// batchSize is search.batch_size.
	batchSize int
	time      time.Duration // 0: no limit
	memory    int64
	nodes     int64
	// store is the solution store solve consults (store.path); bench
	// leaves it nil, so that it measures the solver.
	store solver.Store
}

// settingsFromFlags reads the command's own flags and the budget and
// fall-back from the configuration (limits.*, fallback.*, which the global
// --time, --memory, --nodes, --planners, --search-share and --portfolio flags set). The
// components are resolved in reg, built-in or plugin; a plugin is started
// here.
func settingsFromFlags(ctx context.Context, env *Env, reg *registry.Registry, objective, strategy, heuristic string, deadlocks []string) (solveSettings, error) {
	var s solveSettings
	obj, err := engine.ParseObjective(objective)
	if err != nil {
		return s, usagef("--objective: %v", err)
	}
	if s.strategy, err = engine.ParseStrategy(strategy); err != nil {
		return s, usagef("--strategy: %v", err)
	}
	if obj == engine.ObjectivePushes && (s.strategy == engine.StrategyGreedy || s.strategy == engine.StrategyPacking) {
		return s, usagef("--strategy %s cannot prove push-optimality; use it with --objective any", strategy)
	}
	h, err := reg.Heuristic(ctx, heuristic)
	if err != nil {
		return s, usagef("--heuristic: %v", err)
	}
	if obj == engine.ObjectivePushes && !h.Admissible {
		return s, usagef("--heuristic %s is not admissible, so it cannot prove push-optimality; use it with --objective any", h.Name)
	}
	for _, name := range deadlocks {
		d, err := reg.Deadlocks(ctx, name)
		if err != nil {
			return s, usagef("--deadlock: %v", err)
		}
		s.deadlocks = append(s.deadlocks, d)
	}
	for _, name := range env.Config.Fallback.Planners {
		if name == "none" {
			continue
		}
		p, err := reg.Planner(ctx, name)
		if err != nil {
			return s, usagef("--planners: %v", err)
		}
		s.planners = append(s.planners, solver.Planner{Name: p.Name, Planner: p.Planner})
	}
	s.objective, s.heuristic = obj, h
	if s.off, err = engine.ParseTechniques(env.Config.Search.Off); err != nil {
		return s, usagef("search.off: %v", err)
	}
	s.searchShare = env.Config.Fallback.SearchShare
	s.plannerShare = env.Config.Fallback.PlannerShare
	s.portfolio = env.Config.Fallback.Portfolio
	s.batchSize = env.Config.Search.BatchSize
	s.time = env.Config.Limits.Time
	s.memory = int64(env.Config.Limits.Memory)
	s.nodes = int64(env.Config.Limits.Nodes)
	return s, nil
}

// solveLevel solves one level through the solver. onEvent may be nil. The
// error is bad input or an internal error; unsolvable and gave up are
// results.
func solveLevel(ctx context.Context, env *Env, l *sokoban.Level, s solveSettings, onEvent func(solver.Event)) (*solver.Result, error) {
	r, err := solver.Solve(ctx, solver.Request{
		Level: l, Objective: s.objective, Strategy: s.strategy, Off: s.off, Heuristic: s.heuristic, Deadlocks: s.deadlocks, Planners: s.planners, SearchShare: s.searchShare, PlannerShare: s.plannerShare, Portfolio: s.portfolio,
		BatchSize: s.batchSize,
		Budget:    solver.Budget{Time: s.time, Memory: s.memory, Nodes: s.nodes},
		Clock:     env.Now, OnEvent: onEvent, Store: s.store,
	})
	var bad *solver.BadLevelError
	if errors.As(err, &bad) {
		return nil, withCode(exitBadInput, err)
	}
	return r, err
}

// deadlockUsage documents --deadlock for solve and bench.
const deadlockUsage = "deadlock detector `names`, comma-separated: plugins, applied on top of the engine's own tests (tables natively, checks in batches of --batch-size)"

// strategyUsage documents --strategy for solve and bench.
const strategyUsage = "search `order`: best-first (A* for pushes; for any, greedy and A* in turn, and on goal-room levels the packing search in turns with them), greedy or packing (any only), or ida (iterative deepening A*: little memory, more time)"

// progressLine is the live progress line of a solve on a terminal.
func progressLine(e solver.Event) string {
	if e.Phase == solver.PhasePlan {
		return fmt.Sprintf("planner %s: %s nodes, %d boxes on goals at best, %.1fs", e.Component, count(e.Nodes), e.BoxesOnGoals, e.Elapsed.Seconds())
	}
	rate := 0.0
	if e.Elapsed > 0 {
		rate = float64(e.Nodes) / e.Elapsed.Seconds()
	}
	batches := ""
	if e.Batches > 0 {
		batches = fmt.Sprintf(", %s batches (%.1fs waiting)", count(e.Batches), e.BatchWait.Seconds())
	}
	return fmt.Sprintf("searching (%s): %s nodes, %s/s, %s stored, depth %d, bound %d, %s%s, %.1fs", e.Component,
		count(e.Nodes), count(int64(rate)), count(e.Stored), e.Depth, e.LowerBound, bytesText(e.Memory), batches, e.Elapsed.Seconds())
}

func solveCommand(env *Env) *cobra.Command {
	var (
		level                          int
		objective, heuristic, strategy string
		deadlocks                      []string
		remote                         string
		asJSON, events                 bool
	)
	cmd := &cobra.Command{
		Use:   "solve FILE [--level N] [--objective any|pushes] [--strategy best-first|greedy|packing|ida] [--heuristic NAME] [--deadlock NAME,...] [--json|--events]",
		Short: "Solve a level and print the solution in LURD with its metrics.",
		Long: "Solve a level and print the solution in LURD with its metrics. The budget comes from\n" +
			"--time, --memory and --nodes (limits.* in the configuration). Exit codes: 0 solved,\n" +
			"5 unsolvable, 6 gave up, 3 bad input, 130 interrupted.",
		Args:              argsBetween(1, 1),
		ValidArgsFunction: levelFiles,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if asJSON {
				// Scripts read stdout: a failure is a JSON object there
				// too (and the message on stderr, as always).
				defer func() { err = jsonFailure(env, args[0], level, err) }()
			}
			ctx := cmd.Context()
			if asJSON && events {
				return usagef("--json and --events cannot be used together")
			}
			report := &solveReport{env: env, asJSON: asJSON, events: events}
			if remote != "" {
				return solveRemote(ctx, env, remote, args[0], remoteSolveFlags{level: level, objective: objective,
					strategy: strategy, heuristic: heuristic, deadlocks: deadlocks}, report)
			}
			reg, _, closeRegistry := openRegistry(env)
			defer closeRegistry()
			settings, err := settingsFromFlags(ctx, env, reg, objective, strategy, heuristic, deadlocks)
			if err != nil {
				return err
			}
			l, err := readLevel(env, args[0], level)
			if err != nil {
				return err
			}
			st, closeStore, err := openStore(ctx, env)
			if err != nil {
				return err
			}
			defer closeStore()
			if st != nil {
				settings.store = st
			}
			env.limitMemory(settings.memory)
			start := env.Now()
			r, err := solveLevel(ctx, env, l, settings, report.progressFunc())
			report.clear()
			if err != nil {
				return err
			}
			out := solveOutput{
				File: args[0], Level: level, Title: l.Title,
				Status: solver.StatusName(r.Status), Reason: r.Reason,
				Optimal: r.Optimal, FoundBy: r.FoundBy, Phase: string(r.FoundIn),
				Nodes: r.Search.Nodes, Stored: r.Search.Stored,
				Batches: r.Search.Batches, BatchWaitSeconds: r.Search.BatchWait.Seconds(),
				Seconds:   env.Now().Sub(start).Seconds(),
				Heuristic: r.Heuristic, Objective: r.Objective.String(), Runs: r.Runs,
			}
			if out.Heuristic == "" {
				// A solve stopped before the heuristic was prepared.
				out.Heuristic = settings.heuristic.Name
			}
			if r.Status == engine.Solved {
				out.Solution = r.Solution.String()
				out.Moves, out.Pushes = r.Metrics.Moves, r.Metrics.Pushes
				out.BoxLines, out.BoxChanges = r.Metrics.BoxLines, r.Metrics.BoxChanges
			}
			if err := report.result(out); err != nil {
				return err
			}
			switch {
			case r.Status == engine.Solved:
				return nil
			case r.Status == engine.Unsolvable:
				return withCode(exitUnsolvable, errSilent)
			case r.Reason == engine.ReasonCancelled && ctx.Err() != nil:
				return withCode(exitInterrupted, errSilent)
			}
			return withCode(exitGaveUp, errSilent)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&level, "level", 1, "level `number` within FILE, from 1")
	fs.StringVar(&objective, "objective", "any", "`goal` of the search: any (a solution, fast) or pushes (fewest pushes, proved)")
	fs.StringVar(&heuristic, "heuristic", heuristics.Default, "lower bound `name`: simple, greedy (any only), matching, or a plugin's (see sokod plugins list)")
	fs.StringSliceVar(&deadlocks, "deadlock", nil, deadlockUsage)
	fs.StringVar(&strategy, "strategy", "best-first", strategyUsage)
	fs.StringVar(&remote, "remote", "", remoteUsage)
	fs.BoolVar(&asJSON, "json", false, "print JSON: {file, level, title, status (solved|unsolvable|gave_up), reason, solution, moves, pushes, box_lines, box_changes, optimal, found_by, phase, nodes, stored, seconds, batches, batch_wait_seconds, heuristic, objective, runs: [{phase, component, status, reason, nodes}]}")
	fs.BoolVar(&events, "events", false, "print JSON lines, for a program that drives sokod: {event: progress, phase, component, nodes, stored, depth, lower_bound, memory_bytes, boxes_on_goals, elapsed_ms, text} about four times a second, then the --json document with event: result")
	completeSearchFlags(cmd)
	return cmd
}

// errorOutput is the "sokod solve --json" document of a solve that could
// not run: {"file", "level", "status": "error", "error": {"kind",
// "message", "line", "column"}}.
type errorOutput struct {
	File   string      `json:"file"`
	Level  int         `json:"level"`
	Status string      `json:"status"`
	Error  errorDetail `json:"error"`
}

// errorDetail says what went wrong. Kind is a stable token: a level's
// parse error kind ("unknown_character", "open_border", ...),
// "no_such_level", "unreadable", "usage", "interrupted" or "internal".
type errorDetail struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Line and Column place a parse error in the file, from 1.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// jsonFailure writes err, when the command failed without output of its
// own, as an errorOutput on stdout, and returns err.
func jsonFailure(env *Env, file string, level int, err error) error {
	if err == nil || errors.Is(err, errSilent) {
		return err
	}
	d := errorDetail{Kind: "internal", Message: err.Error()}
	var pe *sokoban.ParseError
	var usage *usageError
	var ne *noSuchLevelError
	switch {
	case errors.As(err, &pe):
		d.Kind, d.Line, d.Column = strings.ReplaceAll(pe.Kind.String(), " ", "_"), pe.Line, pe.Col
	case errors.As(err, &ne):
		d.Kind = "no_such_level"
	case errors.As(err, &usage):
		d.Kind = "usage"
	case exitCode(err) == exitBadInput:
		d.Kind = "unreadable"
	case exitCode(err) == exitInterrupted:
		d.Kind = "interrupted"
	}
	if werr := writeJSON(env.Stdout, errorOutput{File: file, Level: level, Status: "error", Error: d}); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

func printSolve(w io.Writer, o solveOutput) {
	name := fmt.Sprintf("level %d", o.Level)
	if o.Title != "" {
		name += fmt.Sprintf(" (%s)", o.Title)
	}
	switch o.Status {
	case "solved":
		proof := "not proved optimal"
		if o.Optimal {
			proof = "push-optimal"
		}
		switch o.Phase {
		case string(solver.PhasePlan):
			proof += ", found by planner " + o.FoundBy
		case string(solver.PhaseStore):
			proof += ", from the solution store"
		}
		fmt.Fprintf(w, "solved %s: %d pushes, %d moves, %s\n%s\n", name, o.Pushes, o.Moves, proof, o.Solution)
		fmt.Fprintf(w, "moves %d  pushes %d  box lines %d  box changes %d\n", o.Moves, o.Pushes, o.BoxLines, o.BoxChanges)
	case "unsolvable":
		fmt.Fprintf(w, "unsolvable: %s: %s\n", name, o.Reason)
	default:
		fmt.Fprintf(w, "gave up: %s: %s\n", name, o.Reason)
	}
	fmt.Fprintf(w, "nodes %d  stored %d  %.2fs  heuristic %s  objective %s\n", o.Nodes, o.Stored, o.Seconds, dash(o.Heuristic), o.Objective)
	if o.Batches > 0 {
		fmt.Fprintf(w, "batches %d  waiting %.2fs\n", o.Batches, o.BatchWaitSeconds)
	}
}

// count prints a count with a k/M/G suffix.
func count(n int64) string {
	switch {
	case n >= 10_000_000_000:
		return fmt.Sprintf("%dG", n/1_000_000_000)
	case n >= 10_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}
