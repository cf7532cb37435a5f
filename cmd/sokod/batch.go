package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/batch"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sokoban"
)

// batchFlags are the solve options of batch and batch submit.
type batchFlags struct {
	objective, strategy, heuristic string
	deadlocks                      []string
}

func (f *batchFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.objective, "objective", "any", "`goal` of the search: any or pushes")
	fs.StringVar(&f.heuristic, "heuristic", heuristics.Default, "lower bound `name`: simple, greedy (any only), matching, or a plugin's the workers have")
	fs.StringSliceVar(&f.deadlocks, "deadlock", nil, deadlockUsage)
	fs.StringVar(&f.strategy, "strategy", "best-first", strategyUsage)
}

// options checks the flags and returns the jobs' options: the flags, and
// this side's budget and planners (limits.*, fallback.planners), which a
// worker lowers to its own limits.
func (f *batchFlags) options(env *Env) (batch.SolveOptions, error) {
	o := batch.SolveOptions{Objective: f.objective, Strategy: f.strategy, Heuristic: f.heuristic, Deadlocks: f.deadlocks}
	obj, err := engine.ParseObjective(f.objective)
	if err != nil {
		return o, usagef("--objective: %v", err)
	}
	strategy, err := engine.ParseStrategy(f.strategy)
	if err != nil {
		return o, usagef("--strategy: %v", err)
	}
	if obj == engine.ObjectivePushes && strategy == engine.StrategyGreedy {
		return o, usagef("--strategy greedy cannot prove push-optimality; use it with --objective any")
	}
	lim := env.Config.Limits
	o.TimeMillis, o.MemoryBytes, o.Nodes = lim.Time.Milliseconds(), int64(lim.Memory), int64(min(lim.Nodes, 1<<62))
	o.Planners = env.Config.Fallback.Planners
	if len(o.Planners) == 0 {
		o.Planners = []string{"none"}
	}
	return o, nil
}

// batchJobs reads the levels of files, one job each.
func batchJobs(env *Env, files []string, o batch.SolveOptions) ([]*batch.Job, error) {
	var jobs []*batch.Job
	for _, f := range files {
		c, err := readCollection(env, f)
		if err != nil {
			return nil, err
		}
		for i, l := range c.Levels {
			jobs = append(jobs, &batch.Job{Ref: batch.Ref{File: f, Level: i + 1, Title: l.Title, Text: l.Text()}, Options: o})
		}
	}
	return jobs, nil
}

// resultsOutput says how batch results are given: a table, JSON lines, and
// a SOK collection when sok is set.
type resultsOutput struct {
	sok    string
	asJSON bool
}

func (o *resultsOutput) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.sok, "out", "", "also write the levels with their solutions to `FILE.sok` as a SOK collection, as GUIs import it")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print JSON lines: one {kind: level, batch, id, index, file, level, title, status, reason, solution, moves, pushes, box_lines, box_changes, optimal, found_by, nodes, seconds, worker, delivery} per job in order, then {kind: summary, batch, levels, results, solved, optimal, unsolvable, gave_up, failed, invalid}")
}

func batchCommand(env *Env) *cobra.Command {
	var flags batchFlags
	var out resultsOutput
	var workers int
	cmd := &cobra.Command{
		Use:   "batch FILE... [--workers N] [--out FILE.sok] [--json] | batch submit|status|results|delete",
		Short: "Solve collections as a batch on NATS JetStream: here with an in-process server, or by workers anywhere.",
		Long: "sokod batch FILE... solves every level of the files on this machine: it starts an in-process\n" +
			"NATS server with JetStream in a directory of its own, puts one job per level on its queue, runs\n" +
			"--workers workers (default server.max_jobs, or one per CPU) and prints the results as batch\n" +
			"results does. The same code runs a batch across machines: batch submit puts the jobs on a NATS\n" +
			"server, sokod worker solves them wherever it runs, batch status and batch results follow and\n" +
			"collect them. --time, --memory and --nodes are the budget per level. Exit code 0 unless a\n" +
			"solution fails verification (1), a file is bad (3) or the run is interrupted (130).",
		Args: argsBetween(1, 1<<20),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := flags.options(env)
			if err != nil {
				return err
			}
			if workers < 0 {
				return usagef("--workers must be at least 1")
			}
			if workers == 0 {
				workers = workerSlots(env)
			}
			return runLocalBatch(cmd.Context(), env, args, o, workers, out)
		},
	}
	flags.register(cmd)
	cmd.Flags().IntVar(&workers, "workers", 0, "workers solving at once (default server.max_jobs, or one per CPU)")
	out.register(cmd)
	cmd.AddCommand(batchSubmitCommand(env), batchStatusCommand(env), batchResultsCommand(env), batchDeleteCommand(env))
	return cmd
}

// runLocalBatch runs a batch on an in-process NATS server with workers
// workers, and reports its results.
func runLocalBatch(ctx context.Context, env *Env, files []string, o batch.SolveOptions, workers int, out resultsOutput) error {
	jobs, err := batchJobs(env, files, o)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "sokod-batch-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := batch.StartServer(batch.ServerOptions{Dir: dir, Log: env.Log})
	if err != nil {
		return err
	}
	defer srv.Shutdown()
	env.Log.Debug("in-process NATS server", "url", srv.URL(), "dir", dir)
	q, err := connectQueue(ctx, env, srv.URL(), "sokod batch")
	if err != nil {
		return err
	}
	defer q.Close()
	reg, host, closeHost := openRegistry(env)
	defer closeHost()
	st, closeStore, err := openStore(ctx, env)
	if err != nil {
		return err
	}
	defer closeStore()
	b := &batch.Batch{ID: q.NewID(), Files: files, Options: o}
	if err := q.Submit(ctx, b, jobs); err != nil {
		return err
	}
	if err := host.Start(ctx); err != nil {
		env.Log.Warn("plugins not all started", "error", err)
	}
	env.limitMemory(o.MemoryBytes * int64(workers))
	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	w := batch.NewWorker(q, levelSolver(env, reg, st), batch.WorkerOptions{Slots: workers, Log: env.Log})
	wg.Go(func() {
		if err := w.Run(wctx); err != nil {
			env.Log.Error("worker", "error", err)
		}
	})
	err = q.Wait(ctx, b.ID, progressPrinter(env, b.Levels))
	stopWorkers()
	wg.Wait()
	if err != nil && ctx.Err() == nil {
		return err
	}
	// What was solved before an interrupt is reported all the same.
	rs, rerr := q.Results(context.WithoutCancel(ctx), b.ID)
	if rerr != nil {
		return rerr
	}
	if err := reportResults(env, b, rs, out); err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil {
		return withCode(exitInterrupted, ctx.Err())
	}
	return nil
}

// progressPrinter returns a Wait callback that shows "N/M levels" on
// standard error when it is a terminal.
func progressPrinter(env *Env, levels int) func(*batch.Result) {
	if !isTerminal(env.Stderr) {
		return func(*batch.Result) {}
	}
	done, solved := 0, 0
	return func(r *batch.Result) {
		if r.Index == 0 {
			return
		}
		done++
		if r.Status == batch.StatusSolved {
			solved++
		}
		fmt.Fprintf(env.Stderr, "\r\033[K%d/%d levels, %d solved", done, levels, solved)
		if done == levels {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
	}
}

// resultLine is one level line of the batch results in JSON.
type resultLine struct {
	Kind string `json:"kind"` // "level"
	*batch.Result
}

// resultsSummary is the last line of the batch results in JSON.
type resultsSummary struct {
	Kind       string `json:"kind"` // "summary"
	Batch      string `json:"batch"`
	Levels     int    `json:"levels"`
	Results    int    `json:"results"`
	Solved     int    `json:"solved"`
	Optimal    int    `json:"optimal"`
	Unsolvable int    `json:"unsolvable"`
	GaveUp     int    `json:"gave_up"`
	// Failed counts failed, invalid_level and invalid_job results, and
	// solutions that fail verification here.
	Failed int `json:"failed"`
	// Invalid counts messages on the batch's queue that were not jobs.
	Invalid int `json:"invalid"`
}

// reportResults prints rs, the results of b, and writes them to out.sok
// when set. Every solution is replayed here once more; one that fails is
// reported as invalid and is an error, as is a batch with levels missing.
func reportResults(env *Env, b *batch.Batch, rs []*batch.Result, out resultsOutput) error {
	sum := resultsSummary{Kind: "summary", Batch: b.ID, Levels: b.Levels}
	var c *sokoban.Collection
	if out.sok != "" {
		c = &sokoban.Collection{}
	}
	invalid := 0
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	if !out.asJSON {
		fmt.Fprintln(tw, "LEVEL\tSTATUS\tPUSHES\tMOVES\tFOUND BY\tWORKER\tSECONDS")
	}
	for _, r := range rs {
		if r.Index == 0 {
			sum.Invalid++
		} else {
			sum.Results++
			l, err := checkResult(r)
			if err != nil {
				r.Status, r.Reason = "invalid", err.Error()
				invalid++
			}
			sum.count(r)
			if c != nil && l != nil {
				c.Levels = append(c.Levels, l)
			}
		}
		if out.asJSON {
			line := *r
			line.Text = "" // the level is the job's, not news
			if err := writeJSONLine(env.Stdout, resultLine{Kind: "level", Result: &line}); err != nil {
				return err
			}
		} else {
			printResultRow(tw, r)
		}
	}
	if out.asJSON {
		if err := writeJSONLine(env.Stdout, sum); err != nil {
			return err
		}
	} else {
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "batch %s: %d of %d levels, %d solved (%d proved optimal), %d unsolvable, %d gave up, %d failed\n",
			b.ID, sum.Results, sum.Levels, sum.Solved, sum.Optimal, sum.Unsolvable, sum.GaveUp, sum.Failed)
		if sum.Invalid > 0 {
			fmt.Fprintf(env.Stdout, "%d message(s) on the batch's queue were not jobs\n", sum.Invalid)
		}
	}
	if c != nil {
		f := &sokFile{path: out.sok, c: c}
		if err := f.write(); err != nil {
			return err
		}
		if !out.asJSON {
			fmt.Fprintf(env.Stdout, "wrote %s: %d levels, %d with a solution\n", out.sok, len(c.Levels), sum.Solved)
		}
	}
	switch {
	case invalid > 0:
		return fmt.Errorf("%d solution(s) failed verification", invalid)
	case sum.Results < b.Levels:
		return fmt.Errorf("batch %s: %d of %d levels have results", b.ID, sum.Results, b.Levels)
	}
	return nil
}

func (s *resultsSummary) count(r *batch.Result) {
	switch r.Status {
	case batch.StatusSolved:
		s.Solved++
		if r.Optimal {
			s.Optimal++
		}
	case batch.StatusUnsolvable:
		s.Unsolvable++
	case batch.StatusGaveUp:
		s.GaveUp++
	default:
		s.Failed++
	}
}

// checkResult parses r's level and, when solved, replays its solution and
// stores it with the level as a solution snapshot. The level is nil when
// its text does not parse (an invalid_level result).
func checkResult(r *batch.Result) (*sokoban.Level, error) {
	l, err := sokoban.Parse(r.Text)
	if err != nil {
		if r.Status == batch.StatusSolved {
			return nil, fmt.Errorf("the level does not parse: %w", err)
		}
		return nil, nil
	}
	if r.Status != batch.StatusSolved {
		return l, nil
	}
	sol, err := sokoban.ParseSolution(r.Solution)
	if err != nil {
		return l, fmt.Errorf("the solution does not verify: %w", err)
	}
	if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved || m.Pushes != r.Pushes || m.Moves != r.Moves {
		return l, fmt.Errorf("the solution does not verify: %v (metrics %+v)", err, m)
	}
	if _, err := l.AddSolution(sol); err != nil {
		return l, err
	}
	return l, nil
}

func printResultRow(w io.Writer, r *batch.Result) {
	name := fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Level)
	if r.Index == 0 {
		fmt.Fprintf(w, "%s\t%s\t-\t-\t-\t%s\t-\t%s\n", r.ID, r.Status, r.Worker, r.Reason)
		return
	}
	status := r.Status
	if r.Status == batch.StatusSolved && r.Optimal {
		status = "optimal"
	}
	pushes, moves := "-", "-"
	if r.Status == batch.StatusSolved {
		pushes, moves = fmt.Sprint(r.Pushes), fmt.Sprint(r.Moves)
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%.2f", name, status, pushes, moves, dash(r.FoundBy), r.Worker, r.Seconds)
	if r.Status != batch.StatusSolved && r.Reason != "" {
		fmt.Fprintf(w, "\t%s", r.Reason)
	}
	fmt.Fprintln(w)
}

func batchSubmitCommand(env *Env) *cobra.Command {
	var flags batchFlags
	var id string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "submit FILE... [--nats URL] [--batch ID] [--json]",
		Short: "Put one job per level of the files on the batch queue and print the batch id.",
		Long: "Put one job per level of the files on the work queue of the NATS server batch.nats (--nats):\n" +
			"the level, the solve flags, this side's --time, --memory, --nodes and --planners (a worker lowers\n" +
			"them to its own limits) and the batch id, new unless --batch names one. sokod worker solves them.\n" +
			"Exit code 7 when NATS cannot be reached.",
		Args: argsBetween(1, 1<<20),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o, err := flags.options(env)
			if err != nil {
				return err
			}
			if id != "" {
				if err := batch.CheckID(id); err != nil {
					return usagef("--batch: %v", err)
				}
			}
			jobs, err := batchJobs(env, args, o)
			if err != nil {
				return err
			}
			q, err := connectQueue(ctx, env, env.Config.Batch.NATS, "sokod batch submit")
			if err != nil {
				return err
			}
			defer q.Close()
			if id == "" {
				id = q.NewID()
			}
			b := &batch.Batch{ID: id, Files: args, Options: o}
			if err := q.Submit(ctx, b, jobs); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env.Stdout, b)
			}
			fmt.Fprintf(env.Stdout, "%s\n", b.ID)
			env.Log.Info("batch submitted", "batch", b.ID, "levels", b.Levels)
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&id, "batch", "", "batch `id`: letters, digits, - and _ (default: the time and a random suffix)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the batch record as JSON: {id, created, files, levels, options, complete}")
	cmd.Flags().String("nats", "", natsUsage)
	return cmd
}

// batchStatusOutput is "sokod batch status --json": every batch's status.
type batchStatusOutput struct {
	Batches []*batch.Status `json:"batches"`
}

func batchStatusCommand(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [BATCH] [--nats URL] [--json]",
		Short: "Print the progress of every batch, or of one.",
		Long: "Print each batch (or BATCH): its levels, results so far by status, and jobs still queued\n" +
			"(waiting or being solved). A batch whose submitter stopped midway shows as incomplete.",
		Args: argsBetween(0, 1),
		RunE: onQueue(env, "sokod batch status", func(ctx context.Context, q *batch.Queue, args []string) error {
			var ids []string
			if len(args) == 1 {
				ids = args
			} else {
				bs, err := q.Batches(ctx)
				if err != nil {
					return err
				}
				for _, b := range bs {
					ids = append(ids, b.ID)
				}
			}
			out := batchStatusOutput{Batches: []*batch.Status{}}
			for _, id := range ids {
				st, err := q.Status(ctx, id)
				if err != nil {
					return batchError(err)
				}
				out.Batches = append(out.Batches, st)
			}
			if asJSON {
				return writeJSON(env.Stdout, out)
			}
			return printBatchStatus(env.Stdout, out)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {batches: [{batch: {id, created, files, levels, options, complete}, done, queued, statuses: {STATUS: N}, invalid}]}")
	cmd.Flags().String("nats", "", natsUsage)
	return cmd
}

func printBatchStatus(w io.Writer, o batchStatusOutput) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tCREATED\tLEVELS\tDONE\tSOLVED\tQUEUED\tSTATE")
	for _, st := range o.Batches {
		state := "running"
		switch {
		case !st.Batch.Complete:
			state = "incomplete: its submitter stopped"
		case st.Done >= st.Batch.Levels:
			state = "done"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", st.Batch.ID, st.Batch.Created.Local().Format("2006-01-02 15:04"),
			st.Batch.Levels, st.Done, st.Statuses[batch.StatusSolved], st.Queued, state)
	}
	return tw.Flush()
}

// batchError gives an unknown batch id the bad-input exit code.
func batchError(err error) error {
	if errors.Is(err, batch.ErrNoBatch) {
		return withCode(exitBadInput, err)
	}
	return err
}

func batchResultsCommand(env *Env) *cobra.Command {
	var out resultsOutput
	var wait bool
	cmd := &cobra.Command{
		Use:   "results BATCH [--nats URL] [--wait] [--out FILE.sok] [--json]",
		Short: "Print the results of a batch, each level once, and write them as a SOK collection.",
		Long: "Print the results of BATCH in job order, each level once (a job solved twice after a\n" +
			"redelivery counts once), every solution replayed here; --out also writes the levels with their\n" +
			"solutions as a SOK collection. --wait waits for the last result. Exit code 1 when levels have no\n" +
			"result yet or a solution fails verification, 3 for an unknown batch, 7 when NATS cannot be reached.",
		Args: argsBetween(1, 1),
		RunE: onQueue(env, "sokod batch results", func(ctx context.Context, q *batch.Queue, args []string) error {
			b, err := q.Batch(ctx, args[0])
			if err != nil {
				return batchError(err)
			}
			if wait {
				if err := q.Wait(ctx, b.ID, progressPrinter(env, b.Levels)); err != nil {
					return err
				}
			}
			rs, err := q.Results(ctx, b.ID)
			if err != nil {
				return err
			}
			return reportResults(env, b, rs, out)
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until every level has a result")
	out.register(cmd)
	cmd.Flags().String("nats", "", natsUsage)
	return cmd
}

func batchDeleteCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete BATCH [--nats URL]",
		Short: "Remove a batch: its queued jobs, its results and its record.",
		Args:  argsBetween(1, 1),
		RunE: onQueue(env, "sokod batch delete", func(ctx context.Context, q *batch.Queue, args []string) error {
			return batchError(q.Delete(ctx, args[0]))
		}),
	}
	cmd.Flags().String("nats", "", natsUsage)
	return cmd
}
