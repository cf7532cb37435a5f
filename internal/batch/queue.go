// Package batch solves collections on NATS JetStream: a submitter puts one
// job per level on a work-queue stream, workers on any number of machines
// pull jobs up to their number of solve slots, solve them with the same
// solver as every other path, publish the verified result on a results
// stream and only then acknowledge the job; collectors read the results
// back, each job exactly once.
//
// A job is held by one worker at a time. A long solve keeps its job with
// in-progress acknowledgements; a worker that dies stops sending them, and
// JetStream hands the job to another worker when the ack wait runs out,
// so nothing is lost. A job can then be solved twice (a worker that dies
// between publishing its result and acknowledging the job); the results
// stream drops a repeat within its duplicate window and collectors drop any
// later one by job id. A message that is not a job is answered with an
// invalid_job result and acknowledged, and a job delivered more than
// Options.MaxDeliveries times (its workers keep dying on it) with a failed
// result, so no message is redelivered forever.
//
// Three names live on the NATS server: the stream SOKOD_JOBS (subjects
// sokod.jobs.BATCH, work-queue retention) with the durable pull consumer
// sokod-workers, the stream SOKOD_RESULTS (subjects sokod.results.BATCH),
// and the key-value bucket sokod_batches, one entry per batch.
package batch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names on the NATS server.
const (
	JobsStream    = "SOKOD_JOBS"
	ResultsStream = "SOKOD_RESULTS"
	BatchBucket   = "sokod_batches"
	WorkersName   = "sokod-workers"
	jobsPrefix    = "sokod.jobs."
	resultsPrefix = "sokod.results."
)

// DefaultAckWait is how long a job may go without an acknowledgement
// before JetStream gives it to another worker.
const DefaultAckWait = 30 * time.Second

// DefaultMaxDeliveries is how many times a job is delivered before it is
// answered as failed.
const DefaultMaxDeliveries = 5

// Options configure a Queue.
type Options struct {
	// Name names the connection on the server (nats-server's connz).
	Name string
	// Replicas is the streams' and bucket's replica count on a cluster; 0
	// means 1.
	Replicas int
	// AckWait is the workers' ack wait; 0 means DefaultAckWait. It is a
	// property of the queue: the last worker to start sets it.
	AckWait time.Duration
	// MaxDeliveries bounds the deliveries of one job; 0 means
	// DefaultMaxDeliveries.
	MaxDeliveries int
	// Clock names and stamps new batches; nil means time.Now.
	Clock func() time.Time
}

// UnavailableError is a NATS server that cannot be reached.
type UnavailableError struct {
	URL string
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("cannot reach NATS at %s: %v", e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Queue is a connection to the batch streams.
type Queue struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.Stream
	results jetstream.Stream
	batches jetstream.KeyValue
	opts    Options
}

// Connect connects to the NATS server at url and creates the streams and
// the batch bucket if they do not exist. Once connected, the connection
// outlives server restarts: it reconnects until Close.
func Connect(ctx context.Context, url string, opts Options) (*Queue, error) {
	if opts.Replicas <= 0 {
		opts.Replicas = 1
	}
	if opts.AckWait <= 0 {
		opts.AckWait = DefaultAckWait
	}
	if opts.MaxDeliveries <= 0 {
		opts.MaxDeliveries = DefaultMaxDeliveries
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	nc, err := nats.Connect(url, nats.Name(opts.Name), nats.MaxReconnects(-1), nats.ReconnectWait(500*time.Millisecond),
		nats.Timeout(5*time.Second))
	if err != nil {
		return nil, &UnavailableError{URL: url, Err: err}
	}
	q := &Queue{nc: nc, opts: opts}
	if err := q.setUp(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return q, nil
}

// setUp creates or updates the streams and the bucket.
func (q *Queue) setUp(ctx context.Context) error {
	js, err := jetstream.New(q.nc)
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	q.js = js
	q.jobs, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: JobsStream, Description: "sokod batch jobs: one level each",
		Subjects: []string{jobsPrefix + "*"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
		Replicas: q.opts.Replicas,
	})
	if err != nil {
		return q.setUpError(JobsStream, err)
	}
	q.results, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: ResultsStream, Description: "sokod batch results: one per job",
		Subjects: []string{resultsPrefix + "*"}, Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage,
		Replicas: q.opts.Replicas,
	})
	if err != nil {
		return q.setUpError(ResultsStream, err)
	}
	q.batches, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: BatchBucket, Description: "sokod batches", Storage: jetstream.FileStorage, Replicas: q.opts.Replicas,
	})
	if err != nil {
		return q.setUpError(BatchBucket, err)
	}
	return nil
}

func (q *Queue) setUpError(name string, err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrJetStreamNotEnabled) {
		return fmt.Errorf("NATS at %s has JetStream off: start nats-server with -js", q.nc.ConnectedUrlRedacted())
	}
	return fmt.Errorf("create %s: %w", name, err)
}

// Close closes the connection.
func (q *Queue) Close() { q.nc.Close() }

// NewID returns a fresh batch id: the time and a random suffix.
func (q *Queue) NewID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return q.opts.Clock().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Submit puts b's jobs on the queue, one message per job, and records b.
// It fills in each job's batch, id and index; b.ID must be set and new.
// Submitting twice within the streams' duplicate window (two minutes)
// publishes each job once.
func (q *Queue) Submit(ctx context.Context, b *Batch, jobs []*Job) error {
	if err := CheckID(b.ID); err != nil {
		return err
	}
	if len(jobs) == 0 {
		return errors.New("submit: no levels")
	}
	b.Created, b.Levels, b.Complete = q.opts.Clock(), len(jobs), false
	rec, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	rev, err := q.batches.Create(ctx, b.ID, rec)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("submit: batch %s exists already", b.ID)
	}
	if err != nil {
		return fmt.Errorf("submit: record batch %s: %w", b.ID, err)
	}
	for i, j := range jobs {
		j.Batch, j.Index, j.ID = b.ID, i+1, jobID(b.ID, i+1)
		data, err := json.Marshal(j)
		if err != nil {
			return fmt.Errorf("submit: %w", err)
		}
		if _, err := q.js.Publish(ctx, jobsPrefix+b.ID, data, jetstream.WithMsgID(j.ID)); err != nil {
			return fmt.Errorf("submit: job %d of %d (%s level %d): %w", i+1, len(jobs), j.File, j.Level, err)
		}
	}
	b.Complete = true
	if rec, err = json.Marshal(b); err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	if _, err := q.batches.Update(ctx, b.ID, rec, rev); err != nil {
		return fmt.Errorf("submit: record batch %s: %w", b.ID, err)
	}
	return nil
}

// ErrNoBatch is a batch id the queue does not know.
var ErrNoBatch = errors.New("no such batch")

// Batch returns the record of batch id.
func (q *Queue) Batch(ctx context.Context, id string) (*Batch, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	e, err := q.batches.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("batch %s: %w", id, ErrNoBatch)
	}
	if err != nil {
		return nil, fmt.Errorf("batch %s: %w", id, err)
	}
	var b Batch
	if err := json.Unmarshal(e.Value(), &b); err != nil {
		return nil, fmt.Errorf("batch %s: bad record: %w", id, err)
	}
	return &b, nil
}

// Batches returns every batch's record, oldest first.
func (q *Queue) Batches(ctx context.Context) ([]*Batch, error) {
	lister, err := q.batches.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list batches: %w", err)
	}
	var out []*Batch
	for key := range lister.Keys() {
		b, err := q.Batch(ctx, key)
		if errors.Is(err, ErrNoBatch) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Status is a batch's progress.
type Status struct {
	Batch *Batch `json:"batch"`
	// Done counts the jobs with a result; Queued the jobs still on the
	// queue (waiting or being solved).
	Done   int `json:"done"`
	Queued int `json:"queued"`
	// Statuses counts results by status.
	Statuses map[string]int `json:"statuses"`
	// Invalid counts messages on the batch's subject that were not jobs.
	Invalid int `json:"invalid"`
}

// Status returns batch id's progress.
func (q *Queue) Status(ctx context.Context, id string) (*Status, error) {
	b, err := q.Batch(ctx, id)
	if err != nil {
		return nil, err
	}
	rs, err := q.Results(ctx, id)
	if err != nil {
		return nil, err
	}
	st := &Status{Batch: b, Statuses: map[string]int{}}
	for _, r := range rs {
		st.count(r)
	}
	info, err := q.jobs.Info(ctx, jetstream.WithSubjectFilter(jobsPrefix+id))
	if err != nil {
		return nil, fmt.Errorf("batch %s: %w", id, err)
	}
	st.Queued = int(info.State.Subjects[jobsPrefix+id])
	return st, nil
}

func (st *Status) count(r *Result) {
	if r.Index == 0 {
		st.Invalid++
		return
	}
	st.Done++
	st.Statuses[r.Status]++
}

// Results returns the results of batch id received so far, one per job,
// in job order; results of messages that were not jobs come first.
func (q *Queue) Results(ctx context.Context, id string) ([]*Result, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	subject := resultsPrefix + id
	info, err := q.results.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return nil, fmt.Errorf("results of %s: %w", id, err)
	}
	var out []*Result
	if info.State.Subjects[subject] == 0 {
		return out, nil
	}
	err = q.readResults(ctx, id, true, func(r *Result) bool {
		out = append(out, r)
		return false
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// Wait calls fn with each new result of batch id, in the order they come,
// until every job has one or ctx ends.
func (q *Queue) Wait(ctx context.Context, id string, fn func(*Result)) error {
	b, err := q.Batch(ctx, id)
	if err != nil {
		return err
	}
	done := 0
	return q.readResults(ctx, id, false, func(r *Result) bool {
		fn(r)
		if r.Index > 0 {
			done++
		}
		return done >= b.Levels
	})
}

// readResults reads batch id's results from the first and calls fn with
// each job's first, until fn returns true, ctx ends, or, with snapshot
// set, every result published before the call has been read.
func (q *Queue) readResults(ctx context.Context, id string, snapshot bool, fn func(*Result) bool) error {
	cons, err := q.results.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultsPrefix + id}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("results of %s: %w", id, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("results of %s: %w", id, err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	seen := map[string]bool{}
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("results of %s: %w", id, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("results of %s: %w", id, err)
		}
		// Only workers publish here; what is not a result is skipped, and
		// a job's later results are repeats.
		var r Result
		if err := json.Unmarshal(msg.Data(), &r); err == nil && r.ID != "" && !seen[r.ID] {
			seen[r.ID] = true
			if fn(&r) {
				return nil
			}
		}
		if snapshot && meta.NumPending == 0 {
			return nil
		}
	}
}

// Delete removes batch id: its waiting jobs, its results and its record.
func (q *Queue) Delete(ctx context.Context, id string) error {
	if _, err := q.Batch(ctx, id); err != nil {
		return err
	}
	if err := q.jobs.Purge(ctx, jetstream.WithPurgeSubject(jobsPrefix+id)); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if err := q.results.Purge(ctx, jetstream.WithPurgeSubject(resultsPrefix+id)); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if err := q.batches.Purge(ctx, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	return nil
}

// trimmed shortens s for a log line or a reason.
func trimmed(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
