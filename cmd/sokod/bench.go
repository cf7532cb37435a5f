package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/sokoban"
)

// benchLevel is one line of "sokod bench --json": the result of one level.
type benchLevel struct {
	Kind  string `json:"kind"` // "level"
	File  string `json:"file"`
	Level int    `json:"level"`
	Title string `json:"title"`
	// Status is "solved", "unsolvable", "gave_up", or "invalid" for a
	// solution that failed verification (an internal error).
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Pushes  int    `json:"pushes"`
	Moves   int    `json:"moves"`
	Optimal bool   `json:"optimal"`
	// FoundBy names the component that settled the level (the heuristic
	// for the exhaustive search, else a planner), "" when none did.
	FoundBy string `json:"found_by"`
	// Nodes is the work of every component run: the search's expansions
	// plus the planners' own counts.
	Nodes          int64   `json:"nodes"`
	Stored         int64   `json:"stored"`
	NodesPerSecond float64 `json:"nodes_per_second"`
	Seconds        float64 `json:"seconds"`
	// MemoryBytes is the search memory the level touched: table pages and
	// open-list entries at their peak.
	MemoryBytes int64 `json:"memory_bytes"`
	// Solution is the verified solution in LURD; empty unless solved.
	Solution string `json:"solution"`

	sol sokoban.Solution // Solution, for bench --sok
}

// benchSummary is the last line of "sokod bench --json".
type benchSummary struct {
	Kind           string  `json:"kind"` // "summary"
	Levels         int     `json:"levels"`
	Solved         int     `json:"solved"`
	Optimal        int     `json:"optimal"`
	Unsolvable     int     `json:"unsolvable"`
	GaveUp         int     `json:"gave_up"`
	Invalid        int     `json:"invalid"`
	Nodes          int64   `json:"nodes"`
	Seconds        float64 `json:"seconds"` // summed over levels
	NodesPerSecond float64 `json:"nodes_per_second"`
	PeakMemory     int64   `json:"peak_memory_bytes"`
	Objective      string  `json:"objective"`
	Heuristic      string  `json:"heuristic"`
	TimePerLevel   float64 `json:"time_per_level"` // seconds; 0 for none
	Jobs           int     `json:"jobs"`
}

type benchTask struct {
	file  string
	index int
	level *sokoban.Level
}

func benchCommand(env *Env) *cobra.Command {
	var (
		objective, heuristic, strategy string
		deadlocks                      []string
		jobs                           int
		asJSON                         bool
		sokPath                        string
	)
	cmd := &cobra.Command{
		Use:   "bench FILE... [--objective any|pushes] [--strategy NAME] [--heuristic NAME] [--deadlock NAME,...] [--jobs N] [--json]",
		Short: "Solve every level of the files, verify each solution, and print a table with totals.",
		Long: "Solve every level of the files, verify each solution, and print a table with totals.\n" +
			"--time is the budget per level; --memory is per job. Exit code 0 unless a solution fails\n" +
			"verification (1), a file is bad (3) or the run is interrupted (130).",
		Args:              argsBetween(1, 1<<20),
		ValidArgsFunction: everyLevelFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if jobs < 1 {
				return usagef("--jobs must be at least 1")
			}
			reg, _, closeRegistry := openRegistry(env)
			defer closeRegistry()
			settings, err := settingsFromFlags(ctx, env, reg, objective, strategy, heuristic, deadlocks)
			if err != nil {
				return err
			}
			if sokPath != "" && len(args) != 1 {
				return usagef("--sok takes the solutions of one FILE; got %d files", len(args))
			}
			var tasks []benchTask
			var sok *sokFile
			for _, f := range args {
				c, err := readCollection(env, f)
				if err != nil {
					return err
				}
				for i, l := range c.Levels {
					tasks = append(tasks, benchTask{file: f, index: i + 1, level: l})
				}
				if sokPath != "" {
					sok = &sokFile{path: sokPath, c: c}
				}
			}
			env.limitMemory(settings.memory * int64(jobs))
			return runBench(ctx, env, tasks, settings, jobs, asJSON, sok)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&objective, "objective", "any", "`goal` of the search: any or pushes")
	fs.StringVar(&heuristic, "heuristic", heuristics.Default, "lower bound `name`: simple, greedy (any only), matching, or a plugin's (see sokod plugins list)")
	fs.StringSliceVar(&deadlocks, "deadlock", nil, deadlockUsage)
	fs.StringVar(&strategy, "strategy", "best-first", strategyUsage)
	fs.IntVar(&jobs, "jobs", 1, "levels solved at once, each with its own --memory")
	fs.StringVar(&sokPath, "sok", "", "write FILE's levels with their solutions to `path` as a SOK collection, as GUIs import it: stored solutions are kept, a new one is added unless a stored one is as good in moves and pushes; path may be FILE itself")
	fs.BoolVar(&asJSON, "json", false, "print JSON lines: one {kind: level, file, level, title, status, reason, pushes, moves, optimal, found_by, nodes, stored, nodes_per_second, seconds, memory_bytes, solution} per level, then {kind: summary, levels, solved, optimal, unsolvable, gave_up, invalid, nodes, seconds, nodes_per_second, peak_memory_bytes, objective, heuristic, time_per_level, jobs}")
	completeSearchFlags(cmd)
	complete(cmd, "sok", extensions("sok"))
	return cmd
}

// runBench solves the tasks with jobs workers and prints a row for each in
// task order, then the totals. sok, when not nil, gains each solution.
func runBench(parent context.Context, env *Env, tasks []benchTask, s solveSettings, jobs int, asJSON bool, sok *sokFile) error {
	// ctx also stops the workers when a level fails with an internal error.
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	results := make([]*benchLevel, len(tasks))
	errs := make([]error, len(tasks))
	done := make([]chan struct{}, len(tasks))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = benchOne(ctx, env, tasks[i], s)
				close(done[i])
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range tasks {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()

	sum := benchSummary{Kind: "summary", Objective: s.objective.String(), Heuristic: s.heuristic.Name, TimePerLevel: s.time.Seconds(), Jobs: jobs}
	if !asJSON {
		fmt.Fprintf(env.Stdout, "%-24s %-10s %7s %8s %10s %9s %8s %8s\n", "level", "status", "pushes", "moves", "nodes", "nodes/s", "seconds", "memory")
	}
	bar, color := newBenchBar(env, len(tasks)), useColor(env, env.Stderr)
	defer bar.clear()
	var firstErr error
	interrupted := false
	for i := range tasks {
		select {
		case <-done[i]:
		case <-parent.Done():
			interrupted = true
		}
		if interrupted {
			break
		}
		if errs[i] != nil {
			firstErr = errs[i]
			cancel()
			break
		}
		r := results[i]
		if r.Reason == engine.ReasonCancelled && parent.Err() != nil {
			interrupted = true
			break
		}
		sum.Levels++
		switch r.Status {
		case "solved":
			sum.Solved++
			if r.Optimal {
				sum.Optimal++
			}
		case "unsolvable":
			sum.Unsolvable++
		case "invalid":
			sum.Invalid++
		default:
			sum.GaveUp++
		}
		sum.Nodes += r.Nodes
		sum.Seconds += r.Seconds
		sum.PeakMemory = max(sum.PeakMemory, r.MemoryBytes)
		if sok != nil && r.Status == "solved" {
			if err := sok.add(tasks[i].level, r.sol); err != nil {
				firstErr = err
				cancel()
				break
			}
		}
		bar.clear()
		if asJSON {
			if err := writeJSONLine(env.Stdout, r); err != nil {
				return err
			}
		} else {
			printBenchRow(env.Stdout, r)
		}
		bar.done(sum.Solved, color)
	}
	bar.clear()
	if sum.Seconds > 0 {
		sum.NodesPerSecond = float64(sum.Nodes) / sum.Seconds
	}
	if firstErr == nil || interrupted {
		if asJSON {
			if err := writeJSONLine(env.Stdout, sum); err != nil {
				return err
			}
		} else {
			printBenchSummary(env.Stdout, sum)
		}
	}
	wg.Wait()
	if sok != nil {
		if err := sok.finish(); err != nil && firstErr == nil {
			firstErr = err
		}
		if !asJSON && firstErr == nil {
			fmt.Fprintf(env.Stdout, "wrote %s: %d solution(s) added\n", sok.path, sok.added)
		}
	}
	switch {
	case interrupted:
		return withCode(exitInterrupted, parent.Err())
	case firstErr != nil:
		return firstErr
	case sum.Invalid > 0:
		return fmt.Errorf("%d solution(s) failed verification", sum.Invalid)
	}
	return nil
}

// benchOne solves one level and verifies the solution independently.
func benchOne(ctx context.Context, env *Env, t benchTask, s solveSettings) (*benchLevel, error) {
	start := env.Now()
	r, err := solveLevel(ctx, env, t.level, s, nil)
	if err != nil {
		return nil, fmt.Errorf("%s level %d: %w", t.file, t.index, err)
	}
	secs := env.Now().Sub(start).Seconds()
	out := &benchLevel{
		Kind: "level", File: t.file, Level: t.index, Title: t.level.Title,
		Status: solver.StatusName(r.Status), Reason: r.Reason, FoundBy: r.FoundBy,
		Optimal: r.Optimal, Nodes: r.Nodes(), Stored: r.Search.Stored,
		Seconds: secs, MemoryBytes: r.Search.MemoryUsed,
	}
	if secs > 0 {
		out.NodesPerSecond = float64(out.Nodes) / secs
	}
	if r.Status == engine.Solved {
		m, err := sokoban.Replay(t.level, r.Solution)
		if err != nil || !m.Solved {
			out.Status = "invalid"
			out.Reason = fmt.Sprintf("the solution does not verify: %v", err)
		}
		out.Pushes, out.Moves = m.Pushes, m.Moves
		if out.Status == "solved" {
			out.Solution, out.sol = r.Solution.String(), r.Solution
		}
	}
	return out, nil
}

func printBenchRow(w io.Writer, r *benchLevel) {
	name := fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Level)
	status := r.Status
	switch {
	case r.Status == "solved" && r.Optimal:
		status = "optimal"
	case r.Status == "gave_up":
		status = "gave up"
	}
	pushes, moves := "-", "-"
	if r.Status == "solved" {
		pushes, moves = fmt.Sprint(r.Pushes), fmt.Sprint(r.Moves)
	}
	fmt.Fprintf(w, "%-24s %-10s %7s %8s %10d %9.0f %8.2f %8s\n", name, status, pushes, moves, r.Nodes, r.NodesPerSecond, r.Seconds, bytesText(r.MemoryBytes))
	if r.Status == "invalid" {
		fmt.Fprintf(w, "  %s\n", r.Reason)
	}
}

func printBenchSummary(w io.Writer, s benchSummary) {
	fmt.Fprintf(w, "total: %d levels, %d solved (%d proved optimal), %d unsolvable, %d gave up", s.Levels, s.Solved, s.Optimal, s.Unsolvable, s.GaveUp)
	if s.Invalid > 0 {
		fmt.Fprintf(w, ", %d INVALID", s.Invalid)
	}
	fmt.Fprintf(w, "\n       %d nodes in %.1fs of search (%.0f nodes/s), peak memory %s; objective %s, heuristic %s\n",
		s.Nodes, s.Seconds, s.NodesPerSecond, bytesText(s.PeakMemory), s.Objective, s.Heuristic)
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
