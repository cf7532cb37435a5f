package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Solver solves the level of one job. A worker calls it from each of its
// slots at once.
type Solver interface {
	// Solve returns the outcome of job: Status, Reason, the solution and
	// its metrics, Optimal, FoundBy, Nodes, Seconds; the worker fills in
	// the rest. When ctx ends (the worker stops) it returns promptly, and
	// the worker hands the job back unless it was solved.
	Solve(ctx context.Context, job *Job) *Result
}

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	// Slots is how many jobs the worker solves at once; 0 means 1.
	Slots int
	// Name names the worker in results and logs; "" means HOST:PID.
	Name string
	// Log receives the worker's log; nil means none.
	Log hclog.Logger
}

// Worker pulls jobs from a Queue and solves them.
type Worker struct {
	q      *Queue
	solver Solver
	opts   WorkerOptions
	log    hclog.Logger
}

// NewWorker returns a worker that solves q's jobs with s.
func NewWorker(q *Queue, s Solver, opts WorkerOptions) *Worker {
	if opts.Slots <= 0 {
		opts.Slots = 1
	}
	if opts.Name == "" {
		host, _ := os.Hostname()
		opts.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	log := opts.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Worker{q: q, solver: s, opts: opts, log: log}
}

// retryWait is the pause after a failed pull or publish, while the
// connection to the server is down.
const retryWait = time.Second

// Run pulls and solves jobs until ctx ends. Jobs being solved then are
// handed back to the queue, to be delivered to another worker at once;
// Run returns when every slot has stopped.
func (w *Worker) Run(ctx context.Context) error {
	cons, err := w.q.js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
		Durable: WorkersName, Description: "sokod workers: each job to one worker",
		FilterSubject: jobsPrefix + "*", AckPolicy: jetstream.AckExplicitPolicy, AckWait: w.q.opts.AckWait,
		// The worker answers a job delivered too often itself (see
		// Options.MaxDeliveries), so JetStream never stops delivering one.
		MaxDeliver: -1, MaxAckPending: -1,
	})
	if err != nil {
		return fmt.Errorf("worker: create consumer %s: %w", WorkersName, err)
	}
	w.log.Info("worker started", "name", w.opts.Name, "slots", w.opts.Slots, "ack_wait", w.q.opts.AckWait, "server", w.q.nc.ConnectedUrlRedacted())
	var wg sync.WaitGroup
	for slot := range w.opts.Slots {
		wg.Go(func() { w.slot(ctx, cons, slot+1) })
	}
	wg.Wait()
	w.log.Info("worker stopped", "name", w.opts.Name)
	return nil
}

// slot pulls one job at a time until ctx ends.
func (w *Worker) slot(ctx context.Context, cons jetstream.Consumer, slot int) {
	for ctx.Err() == nil {
		msg, err := cons.Next(jetstream.FetchContext(ctx))
		switch {
		case err == nil:
			w.handle(ctx, cons, msg, fmt.Sprintf("%s/%d", w.opts.Name, slot))
		case ctx.Err() != nil:
		case errors.Is(err, nats.ErrTimeout):
			// No job within the pull's expiry: pull again.
		default:
			w.log.Warn("pull failed; retrying", "error", err)
			sleep(ctx, retryWait)
		}
	}
}

// handle answers one message: it solves the job, publishes the result and
// then acknowledges the message, or hands it back when the worker stops.
func (w *Worker) handle(ctx context.Context, cons jetstream.Consumer, msg jetstream.Msg, name string) {
	meta, err := msg.Metadata()
	if err != nil {
		w.log.Error("message without metadata; leaving it to the ack wait", "error", err)
		return
	}
	log := w.log.With("worker", name, "seq", meta.Sequence.Stream, "delivery", meta.NumDelivered)
	job, err := decodeJob(msg.Subject(), msg.Data())
	var res *Result
	switch {
	case err != nil:
		log.Warn("not a job: answering invalid_job", "error", err, "data", trimmed(string(msg.Data()), 200))
		res = &Result{Status: StatusInvalidJob, Reason: err.Error()}
		if job == nil || job.ID == "" {
			job = &Job{Ref: Ref{Batch: batchOf(msg.Subject()), ID: fmt.Sprintf("invalid-%d", meta.Sequence.Stream)}}
		}
		job.Index = 0
	case int(meta.NumDelivered) > w.q.opts.MaxDeliveries:
		log.Warn("job delivered too often: answering failed", "job", job.ID)
		res = &Result{Status: StatusFailed, Reason: fmt.Sprintf("delivered %d times: the workers before stopped or died while solving it", meta.NumDelivered)}
	default:
		log.Info("job started", "job", job.ID, "file", job.File, "level", job.Level, "title", job.Title)
		res = w.solve(ctx, cons, msg, job)
		if ctx.Err() != nil && res.Status != StatusSolved {
			// Stopping: hand the job back for another worker.
			if err := msg.Nak(); err != nil {
				log.Warn("handing the job back failed; it returns after the ack wait", "job", job.ID, "error", err)
			}
			log.Info("job handed back", "job", job.ID)
			return
		}
	}
	res.Ref = job.Ref
	res.Worker, res.Delivery = name, int(meta.NumDelivered)
	if err := w.publish(ctx, res); err != nil {
		log.Warn("result not published; handing the job back", "job", job.ID, "error", err)
		_ = msg.Nak()
		return
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := msg.DoubleAck(actx); err != nil {
		// The job comes back after the ack wait; its result is in, and the
		// repeat will be dropped.
		log.Warn("ack failed", "job", job.ID, "error", err)
	}
	log.Info("job done", "job", job.ID, "status", res.Status, "found_by", res.FoundBy, "seconds", res.Seconds)
}

// solve runs the solver on job, telling the server every third of the ack
// wait that the job is still in progress.
func (w *Worker) solve(ctx context.Context, cons jetstream.Consumer, msg jetstream.Msg, job *Job) *Result {
	ackWait := w.q.opts.AckWait
	// Another worker may have set a shorter ack wait since this one started.
	if info, err := cons.Info(ctx); err == nil && info.Config.AckWait > 0 {
		ackWait = min(ackWait, info.Config.AckWait)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(max(ackWait/3, 10*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if err := msg.InProgress(); err != nil {
					w.log.Debug("in-progress ack failed", "job", job.ID, "error", err)
				}
			case <-done:
				return
			}
		}
	})
	res := w.solver.Solve(ctx, job)
	close(done)
	wg.Wait()
	return res
}

// publish puts res on the results stream, retrying while the server is
// unreachable, until ctx ends. The job id is the message id, so the
// stream drops a repeat within its duplicate window.
func (w *Worker) publish(ctx context.Context, res *Result) error {
	data, err := json.Marshal(res)
	if err != nil {
		return err
	}
	for {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_, err := w.q.js.Publish(pctx, resultsPrefix+res.Batch, data, jetstream.WithMsgID(res.ID))
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		w.log.Warn("publishing a result failed; retrying", "job", res.ID, "error", err)
		sleep(ctx, retryWait)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
