package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/server"
	"github.com/sokod/sokod/internal/solver"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// remoteUsage documents --remote.
const remoteUsage = "solve on a running daemon at `address`: unix:///PATH, a socket path, or HOST:PORT"

// cancelGrace is how long an interrupted remote solve waits for the
// daemon's CANCELLED result before it closes the stream anyway.
const cancelGrace = 5 * time.Second

// grpcTarget turns a --remote address into a gRPC target: unix:///PATH
// (or unix:PATH) as is, an absolute path as a Unix socket, anything else
// as HOST:PORT.
func grpcTarget(addr string) string {
	if strings.HasPrefix(addr, "/") {
		return "unix://" + addr
	}
	return addr
}

// socketOf returns the socket path of a unix:///PATH, unix:PATH or /PATH
// address.
func socketOf(addr string) (string, bool) {
	switch {
	case strings.HasPrefix(addr, "unix://"):
		return strings.TrimPrefix(addr, "unix://"), true
	case strings.HasPrefix(addr, "unix:"):
		return strings.TrimPrefix(addr, "unix:"), true
	case strings.HasPrefix(addr, "/"):
		return addr, true
	}
	return "", false
}

// dialDaemon returns a client of the daemon at addr. Nothing is sent
// until the first call. A Unix socket is checked first
// (server.CheckSocket): one whose directory another user could write to
// is refused, and so, at the default path (ownDefault), is one another
// user owns. Over TCP the calls carry the daemon's token, read from
// tokenFile when it can be (the daemon refuses TCP calls without it).
func dialDaemon(addr string, ownDefault bool, tokenFile string) (sokodv1.SolverServiceClient, func(), error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if path, ok := socketOf(addr); ok {
		if err := server.CheckSocket(path, ownDefault); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("not connecting to %s: %w", addr, err)
		}
	} else if token, err := server.ReadTokenFile(tokenFile); err == nil {
		opts = append(opts, grpc.WithPerRPCCredentials(server.TokenCredentials(token)))
	}
	conn, err := grpc.NewClient(grpcTarget(addr), opts...)
	if err != nil {
		return nil, nil, usagef("--remote %s: %v", addr, err)
	}
	return sokodv1.NewSolverServiceClient(conn), func() { _ = conn.Close() }, nil
}

// remoteError turns a call's failure into the CLI's error, with the exit
// code the local command would have used.
func remoteError(addr string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.InvalidArgument:
		// The daemon names the option first ("heuristic: ..."), as the
		// local solve names its flag.
		return usagef("--%s", st.Message())
	case codes.Unavailable:
		if errorInfoReason(st) == "PLUGIN_UNAVAILABLE" {
			return fmt.Errorf("the daemon at %s: %s; it is restarting, try again", addr, st.Message())
		}
		return fmt.Errorf("no daemon answers at %s: %s", addr, st.Message())
	case codes.Unauthenticated:
		return fmt.Errorf("the daemon at %s wants its token: %s", addr, st.Message())
	case codes.ResourceExhausted:
		return fmt.Errorf("the daemon at %s is busy: %s", addr, st.Message())
	case codes.Canceled:
		return withCode(exitInterrupted, errors.New("interrupted"))
	}
	return fmt.Errorf("daemon at %s: %s: %s", addr, st.Code(), st.Message())
}

// errorInfoReason returns the reason of st's google.rpc.ErrorInfo detail,
// the stable token the daemon's errors carry.
func errorInfoReason(st *status.Status) string {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok {
			return ei.GetReason()
		}
	}
	return ""
}

// remoteSolveFlags are the solve flags a remote solve sends.
type remoteSolveFlags struct {
	level                          int
	objective, strategy, heuristic string
	deadlocks                      []string
}

// solveRemote is `sokod solve --remote`: it reads and checks the level
// here, as the local solve does, sends it with the same options and budget
// (the flags and this side's configuration: limits.*, fallback.*; the
// daemon lowers a limit above its own), and prints the result exactly as
// the local solve prints its own, with the same exit codes. An interrupt
// asks the daemon to cancel the job and prints the cancelled result.
func solveRemote(ctx context.Context, env *Env, addr, path string, f remoteSolveFlags, report *solveReport) error {
	opts, obj, err := remoteSolveOptions(env, f)
	if err != nil {
		return err
	}
	l, err := readLevel(env, path, f.level)
	if err != nil {
		return err
	}
	client, closeConn, err := dialDaemon(addr, false, tokenPath(env))
	if err != nil {
		return err
	}
	defer closeConn()
	// The stream outlives an interrupt of ctx: the daemon is asked to
	// cancel the job instead, so that its result still arrives.
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	start := env.Now()
	// The level goes as its own text, so the daemon's title and board are
	// the ones read here whatever the file held around it.
	stream, err := client.Solve(sctx, &sokodv1.SolveRequest{Level: l.Text(), LevelNumber: 1, Options: opts})
	if err != nil {
		return remoteError(addr, err)
	}
	job := &remoteJob{}
	go job.cancelOnInterrupt(ctx, sctx, stop, client)
	res, err := job.receive(env, addr, stream, report)
	report.clear()
	if err != nil {
		return err
	}
	switch res.Status {
	case sokodv1.Status_STATUS_INVALID_LEVEL:
		return withCode(exitBadInput, errors.New(res.GetLevelError().GetMessage()))
	case sokodv1.Status_STATUS_FAILED:
		return fmt.Errorf("daemon at %s: %s", addr, res.Reason)
	}
	out := remoteOutput(res, path, f.level, l.Title, obj)
	out.Seconds = env.Now().Sub(start).Seconds()
	if err := report.result(out); err != nil {
		return err
	}
	return remoteExit(res.Status)
}

// remoteSolveOptions turns the flags and the configuration into the
// daemon's solve options, and returns the objective asked for.
func remoteSolveOptions(env *Env, f remoteSolveFlags) (*sokodv1.SolveOptions, engine.Objective, error) {
	obj, err := engine.ParseObjective(f.objective)
	if err != nil {
		return nil, obj, usagef("--objective: %v", err)
	}
	strategy, err := engine.ParseStrategy(f.strategy)
	if err != nil {
		return nil, obj, usagef("--strategy: %v", err)
	}
	if obj == engine.ObjectivePushes && strategy == engine.StrategyGreedy {
		return nil, obj, usagef("--strategy greedy cannot prove push-optimality; use it with --objective any")
	}
	cfg := env.Config
	opts := &sokodv1.SolveOptions{
		Objective: sokodv1.Objective_OBJECTIVE_ANY, Strategy: f.strategy, Heuristic: f.heuristic, Deadlocks: f.deadlocks,
		TimeLimit: durationpb.New(cfg.Limits.Time), MemoryLimitBytes: uint64(cfg.Limits.Memory), NodeLimit: cfg.Limits.Nodes,
		SearchShare: int32(cfg.Fallback.SearchShare), UsePlanners: new(false),
	}
	if obj == engine.ObjectivePushes {
		opts.Objective = sokodv1.Objective_OBJECTIVE_PUSHES
	}
	for _, p := range cfg.Fallback.Planners {
		if p != "none" {
			opts.Planners = append(opts.Planners, p)
		}
	}
	if len(opts.Planners) > 0 {
		opts.UsePlanners = new(true)
	}
	return opts, obj, nil
}

// remoteJob is a job solving on the daemon: its id, once accepted.
type remoteJob struct {
	mu sync.Mutex
	id string
}

// cancelOnInterrupt asks the daemon to cancel the job when ctx ends before
// the stream (sctx) does, and ends the stream itself, through stop, when
// the job has no id yet, the cancel fails, or the result does not come
// within cancelGrace.
func (j *remoteJob) cancelOnInterrupt(ctx, sctx context.Context, stop context.CancelFunc, client sokodv1.SolverServiceClient) {
	select {
	case <-sctx.Done():
		return
	case <-ctx.Done():
	}
	j.mu.Lock()
	id := j.id
	j.mu.Unlock()
	if id == "" {
		stop()
		return
	}
	cctx, cancel := context.WithTimeout(sctx, cancelGrace)
	defer cancel()
	if _, err := client.Cancel(cctx, &sokodv1.CancelRequest{JobId: id}); err != nil {
		stop()
		return
	}
	select {
	case <-sctx.Done():
	case <-time.After(cancelGrace):
		stop()
	}
}

// receive reads the job's stream until its result, noting the job's id
// and showing its progress.
func (j *remoteJob) receive(env *Env, addr string, stream grpc.ServerStreamingClient[sokodv1.SolveResponse], report *solveReport) (*sokodv1.Result, error) {
	for {
		resp, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("daemon at %s: the stream ended without a result", addr)
			}
			return nil, remoteError(addr, err)
		}
		switch e := resp.Event.(type) {
		case *sokodv1.SolveResponse_Accepted:
			j.mu.Lock()
			j.id = e.Accepted.JobId
			j.mu.Unlock()
			env.Log.Debug("job accepted", "job", e.Accepted.JobId, "queue_position", e.Accepted.QueuePosition)
		case *sokodv1.SolveResponse_Progress:
			if show := report.progressFunc(); show != nil {
				show(eventOf(e.Progress))
			}
		case *sokodv1.SolveResponse_Result:
			return e.Result, nil
		}
	}
}

// remoteOutput is the daemon's result as solve prints it.
func remoteOutput(res *sokodv1.Result, path string, level int, title string, obj engine.Objective) solveOutput {
	out := solveOutput{
		File: path, Level: level, Title: title, Status: statusName(res.Status), Reason: res.Reason,
		Optimal: res.Optimal, FoundBy: res.FoundBy, Phase: string(phaseOf(res.FoundIn)),
		Nodes: res.GetStats().GetNodes(), Stored: res.GetStats().GetStored(),
		Batches: res.GetStats().GetBatches(), BatchWaitSeconds: res.GetStats().GetBatchWait().AsDuration().Seconds(),
		Heuristic: res.Heuristic, Objective: obj.String(), Runs: []solver.Run{},
	}
	for _, r := range res.Runs {
		out.Runs = append(out.Runs, solver.Run{Phase: phaseOf(r.Phase), Component: r.Component, Status: runStatusName(r.Status), Reason: r.Reason,
			Nodes: r.Nodes, Elapsed: r.GetElapsed().AsDuration()})
	}
	if res.Status == sokodv1.Status_STATUS_SOLVED {
		m := res.GetMetrics()
		out.Solution = res.Solution
		out.Moves, out.Pushes, out.BoxLines, out.BoxChanges = int(m.GetMoves()), int(m.GetPushes()), int(m.GetBoxLines()), int(m.GetBoxChanges())
	}
	return out
}

// remoteExit is the exit status of a daemon's result, as a local solve's.
func remoteExit(st sokodv1.Status) error {
	switch st {
	case sokodv1.Status_STATUS_SOLVED:
		return nil
	case sokodv1.Status_STATUS_UNSOLVABLE:
		return withCode(exitUnsolvable, errSilent)
	case sokodv1.Status_STATUS_CANCELLED:
		return withCode(exitInterrupted, errSilent)
	}
	return withCode(exitGaveUp, errSilent)
}

// statusName spells a result's status as solveOutput does; a cancelled job
// gave up, as a cancelled local solve does.
func statusName(s sokodv1.Status) string {
	switch s {
	case sokodv1.Status_STATUS_SOLVED:
		return "solved"
	case sokodv1.Status_STATUS_UNSOLVABLE:
		return "unsolvable"
	}
	return "gave_up"
}

// runStatusName spells a component run's status as solver.Run does.
func runStatusName(s sokodv1.RunStatus) string {
	switch s {
	case sokodv1.RunStatus_RUN_STATUS_SOLVED:
		return solver.RunSolved
	case sokodv1.RunStatus_RUN_STATUS_UNSOLVABLE:
		return solver.RunUnsolvable
	case sokodv1.RunStatus_RUN_STATUS_INVALID:
		return solver.RunInvalid
	case sokodv1.RunStatus_RUN_STATUS_FAILED:
		return solver.RunFailed
	}
	return solver.RunGaveUp
}

func phaseOf(p sokodv1.Phase) solver.Phase {
	switch p {
	case sokodv1.Phase_PHASE_SEARCH:
		return solver.PhaseSearch
	case sokodv1.Phase_PHASE_PLAN:
		return solver.PhasePlan
	}
	return ""
}

// eventOf is a daemon's progress as the local solve's progress line takes it.
func eventOf(p *sokodv1.Progress) solver.Event {
	return solver.Event{Phase: phaseOf(p.Phase), Component: p.Component, Nodes: p.Nodes, Stored: p.Stored, Depth: int(p.Depth),
		LowerBound: int(p.LowerBound), Memory: p.MemoryBytes, BoxesOnGoals: int(p.BoxesOnGoals), Elapsed: p.GetElapsed().AsDuration(),
		Batches: p.Batches, BatchWait: p.GetBatchWait().AsDuration()}
}

// statusOutput is the "sokod status --json" document.
type statusOutput struct {
	// Address is the daemon's address as given or defaulted.
	Address string `json:"address"`
	// Jobs are the running jobs, then the queued ones in queue order.
	Jobs []statusJob `json:"jobs"`
	// MaxJobs, QueueCapacity, MemoryReserved and MemoryCap are the
	// daemon's admission limits and state; MemoryCap 0 means no cap.
	MaxJobs        int   `json:"max_jobs"`
	QueueCapacity  int   `json:"queue_capacity"`
	MemoryReserved int64 `json:"memory_reserved"`
	MemoryCap      int64 `json:"memory_cap"`
}

// statusFailure is the "sokod status --json" document when the daemon
// cannot be reached or answers with an error.
type statusFailure struct {
	Address string      `json:"address"`
	Error   errorDetail `json:"error"`
}

// statusJob is one job of statusOutput.
type statusJob struct {
	ID string `json:"id"`
	// State is "running" or "queued".
	State     string `json:"state"`
	Title     string `json:"title"`
	Objective string `json:"objective"`
	Heuristic string `json:"heuristic"`
	// Memory is the job's memory budget in bytes.
	Memory    int64      `json:"memory"`
	Submitted time.Time  `json:"submitted"`
	Started   *time.Time `json:"started,omitempty"`
	// Phase, Component, Nodes and Seconds are the latest progress of a
	// running job.
	Phase     string  `json:"phase,omitempty"`
	Component string  `json:"component,omitempty"`
	Nodes     int64   `json:"nodes"`
	Seconds   float64 `json:"seconds"`
}

func statusCommand(env *Env) *cobra.Command {
	var (
		remote string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "status [--remote ADDRESS] [--json]",
		Short: "List the running and queued jobs of a daemon, and its admission limits.",
		Long: "List the running and queued jobs of a daemon, and its admission limits. The address\n" +
			"defaults to the daemon's socket (listen.unix, else $XDG_RUNTIME_DIR/sokod.sock).",
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			addr := remote
			if addr == "" {
				addr = "unix://" + socketPath(env)
			}
			ownDefault := remote == "" && env.Config.Listen.Unix == ""
			if asJSON {
				// A daemon that cannot be reached is a JSON object on
				// stdout too, with the address tried.
				defer func() {
					if err != nil && !errors.Is(err, errSilent) {
						if werr := writeJSON(env.Stdout, statusFailure{Address: addr, Error: errorDetail{Kind: "unreachable", Message: err.Error()}}); werr != nil {
							err = errors.Join(err, werr)
						}
					}
				}()
			}
			client, closeConn, err := dialDaemon(addr, ownDefault, tokenPath(env))
			if err != nil {
				return err
			}
			defer closeConn()
			cctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			resp, err := client.ListJobs(cctx, &sokodv1.ListJobsRequest{})
			if err != nil {
				return remoteError(addr, err)
			}
			out := statusOutput{Address: addr, Jobs: []statusJob{}, MaxJobs: int(resp.MaxJobs), QueueCapacity: int(resp.QueueCapacity),
				MemoryReserved: resp.MemoryReservedBytes, MemoryCap: resp.MemoryCapBytes}
			for _, j := range resp.Jobs {
				sj := statusJob{ID: j.Id, State: "queued", Title: j.Title, Objective: objectiveName(j.Objective), Heuristic: j.Heuristic,
					Memory: j.MemoryBytes, Submitted: j.GetSubmitted().AsTime()}
				if j.State == sokodv1.JobState_JOB_STATE_RUNNING {
					sj.State = "running"
					started := j.GetStarted().AsTime()
					sj.Started = &started
					if p := j.GetProgress(); p != nil {
						sj.Phase, sj.Component, sj.Nodes = string(phaseOf(p.Phase)), p.Component, p.Nodes
						sj.Seconds = p.GetElapsed().AsDuration().Seconds()
					}
				}
				out.Jobs = append(out.Jobs, sj)
			}
			if asJSON {
				return writeJSON(env.Stdout, out)
			}
			return printStatus(env.Stdout, out)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&remote, "remote", "", "daemon `address`: unix:///PATH, a socket path, or HOST:PORT (default the configured socket)")
	fs.BoolVar(&asJSON, "json", false, "print JSON: {address, jobs: [{id, state, title, objective, heuristic, memory, submitted, started, phase, component, nodes, seconds}], max_jobs, queue_capacity, memory_reserved, memory_cap}")
	return cmd
}

func objectiveName(o sokodv1.Objective) string {
	if o == sokodv1.Objective_OBJECTIVE_PUSHES {
		return engine.ObjectivePushes.String()
	}
	return engine.ObjectiveAny.String()
}

func printStatus(w io.Writer, o statusOutput) error {
	running := 0
	for _, j := range o.Jobs {
		if j.State == "running" {
			running++
		}
	}
	capText := "no cap"
	if o.MemoryCap > 0 {
		capText = "cap " + bytesText(o.MemoryCap)
	}
	fmt.Fprintf(w, "%s: %d running (at most %d), %d queued (at most %d), memory %s reserved (%s)\n",
		o.Address, running, o.MaxJobs, len(o.Jobs)-running, o.QueueCapacity, bytesText(o.MemoryReserved), capText)
	if len(o.Jobs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tSTATE\tSECONDS\tNODES\tOBJECTIVE\tHEURISTIC\tMEMORY\tTITLE")
	for _, j := range o.Jobs {
		secs, nodes := "-", "-"
		if j.State == "running" {
			secs, nodes = fmt.Sprintf("%.1f", j.Seconds), count(j.Nodes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.State, secs, nodes, j.Objective, j.Heuristic, bytesText(j.Memory), dash(j.Title))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
