package main

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/batch"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/store"
)

// natsUsage documents --nats.
const natsUsage = "NATS server `URL` with JetStream, or several separated by commas (replaces batch.nats)"

// connectTimeout bounds connecting to NATS and setting up the streams.
const connectTimeout = 30 * time.Second

// connectQueue connects to the configured NATS server (batch.nats,
// --nats). A server that cannot be reached is exitUnavailable.
func connectQueue(ctx context.Context, env *Env, url, name string) (*batch.Queue, error) {
	cfg := env.Config.Batch
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	q, err := batch.Connect(cctx, url, batch.Options{Name: name, Replicas: cfg.Replicas, AckWait: cfg.AckWait,
		MaxDeliveries: cfg.MaxDeliveries, Clock: env.Now})
	var unavailable *batch.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		return nil, withCode(exitUnavailable, err)
	case err != nil && ctx.Err() == nil && cctx.Err() != nil:
		return nil, withCode(exitUnavailable, errors.New("NATS at "+url+" did not set up the batch streams within "+connectTimeout.String()+": "+err.Error()))
	}
	return q, err
}

// levelSolver is the workers' solver: the configured components, limits,
// fall-back and store.
func levelSolver(env *Env, reg *registry.Registry, st *store.Store) *batch.LevelSolver {
	cfg := env.Config
	s := &batch.LevelSolver{
		Components: reg,
		Limits:     batch.Limits{Time: cfg.Limits.Time, Memory: int64(cfg.Limits.Memory), Nodes: int64(min(cfg.Limits.Nodes, 1<<62))},
		Planners:   cfg.Fallback.Planners, SearchShare: cfg.Fallback.SearchShare, PlannerShare: cfg.Fallback.PlannerShare,
		Portfolio: cfg.Fallback.Portfolio, Clock: env.Now,
	}
	if st != nil {
		s.Store = st
	}
	return s
}

// workerSlots is server.max_jobs, or the number of CPUs when it is 0.
func workerSlots(env *Env) int {
	if n := env.Config.Server.MaxJobs; n > 0 {
		return n
	}
	return runtime.NumCPU()
}

func workerCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker [--nats URL]",
		Short: "Solve batch jobs from a NATS JetStream queue until stopped.",
		Long: "Pull jobs from the batch queue on the NATS server batch.nats (--nats), server.max_jobs at a time\n" +
			"(0: one per CPU), solve each with the configured components, limits and fall-back (a job may\n" +
			"ask for less time, memory or nodes, never more), publish the verified result and only then\n" +
			"acknowledge the job. A long solve keeps its job with in-progress acks every third of\n" +
			"batch.ack_wait; a worker that dies loses nothing: its jobs go to another worker after the ack\n" +
			"wait. The store (store.path) answers known levels and keeps what is found. SIGINT or SIGTERM\n" +
			"hand the running jobs back to the queue and exit 0. Exit code 7 when NATS cannot be reached.",
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			q, err := connectQueue(ctx, env, env.Config.Batch.NATS, "sokod worker")
			if err != nil {
				return err
			}
			defer q.Close()
			reg, host, closeHost := openRegistry(env)
			defer closeHost()
			if err := host.Start(ctx); err != nil {
				env.Log.Warn("plugins not all started", "error", err)
			}
			st, closeStore, err := openStore(ctx, env)
			if err != nil {
				return err
			}
			defer closeStore()
			slots := workerSlots(env)
			env.limitMemory(int64(env.Config.Limits.Memory) * int64(slots))
			w := batch.NewWorker(q, levelSolver(env, reg, st), batch.WorkerOptions{Slots: slots, Log: env.Log})
			return w.Run(ctx)
		},
	}
	cmd.Flags().String("nats", "", natsUsage)
	return cmd
}

// onQueue returns a command's RunE that connects to batch.nats (--nats)
// and runs fn with the queue.
func onQueue(env *Env, name string, fn func(ctx context.Context, q *batch.Queue, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		q, err := connectQueue(ctx, env, env.Config.Batch.NATS, name)
		if err != nil {
			return err
		}
		defer q.Close()
		return fn(ctx, q, args)
	}
}
