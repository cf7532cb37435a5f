package server

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/solver"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// Finished jobs are kept for Watch, so that a client that lost its
// connection can fetch the result: the last keepFinished of them, each for
// keepFor after it ended.
const (
	keepFinished = 64
	keepFor      = 10 * time.Minute
)

// Why a job's context ends early; they become the reason of its CANCELLED
// result.
var (
	errCancelled  = errors.New("cancelled")
	errShutdown   = errors.New("cancelled: the daemon is shutting down")
	errClientGone = errors.New("cancelled: the client closed the stream")
)

// errExhausted and errClosed are admission refusals.
var (
	errExhausted = errors.New("every solve slot is taken and the queue is full")
	errClosed    = errors.New("the daemon is shutting down")
)

// job is one admitted solve.
type job struct {
	id  string
	seq uint64 // admission order
	// owner started the job; Cancel and Watch are for it (and operators).
	owner     principal
	title     string
	objective engine.Objective
	heuristic string
	// memory is the job's memory budget, what it counts against the cap
	// while it runs.
	memory int64
	// detach keeps the job running when its Solve call ends.
	detach bool
	// analysis is an Analyze call, admitted as a job but neither listed
	// nor kept once it ends.
	analysis  bool
	submitted time.Time
	// cancel ends the job's context with a cause (errCancelled,
	// errShutdown).
	cancel context.CancelCauseFunc
	// started is closed when the job leaves the queue to run.
	started chan struct{}
	// ended is closed once the job's result is recorded and its slot is
	// free.
	ended chan struct{}

	// Guarded by jobs.mu.
	running   bool
	startedAt time.Time
	progress  *solver.Event
	// progressSeq counts the progress records, so a watcher sends each
	// once.
	progressSeq uint64
	// result is set when the job has ended, at endedAt.
	result  *sokodv1.Result
	endedAt time.Time
	// changed is closed, and replaced, whenever the job starts, records
	// progress or ends: watchers wait on it.
	changed chan struct{}
}

// jobs admits solves: at most maxJobs run at once, within memCap bytes of
// summed memory budgets, and up to queueCap more wait in FIFO order. The
// queue is strict: a big job at its head is not overtaken by smaller ones,
// so it cannot starve.
type jobs struct {
	maxJobs  int
	queueCap int
	memCap   int64 // 0: no cap
	clock    func() time.Time

	mu       sync.Mutex
	nextID   uint64
	running  map[string]*job
	queue    []*job
	finished []*job // ended, oldest first, kept for Watch
	reserved int64  // summed memory of running jobs
	closed   bool
	// idle is closed, and replaced, whenever the last job ends; tests and
	// shutdown wait on it.
	idle chan struct{}
}

func newJobs(maxJobs, queueCap int, memCap int64, clock func() time.Time) *jobs {
	return &jobs{maxJobs: maxJobs, queueCap: queueCap, memCap: memCap, clock: clock,
		running: map[string]*job{}, idle: make(chan struct{})}
}

// admit gives j an id and either starts it, queues it (returning its place
// in the queue from 1), or refuses it with errExhausted or errClosed.
func (m *jobs) admit(j *job) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, errClosed
	}
	if len(m.queue) >= m.queueCap && !(len(m.queue) == 0 && m.fitsLocked(j)) {
		return 0, errExhausted
	}
	m.nextID++
	j.seq = m.nextID
	// Not the admission number: a job id is the one thing that names a
	// job to Cancel and Watch, so no client may guess another's.
	j.id = newJobID()
	j.submitted = m.clock()
	j.started = make(chan struct{})
	j.ended = make(chan struct{})
	j.changed = make(chan struct{})
	m.queue = append(m.queue, j)
	m.dispatchLocked()
	if j.running {
		return 0, nil
	}
	return len(m.queue), nil
}

// fitsLocked reports whether j could start now.
func (m *jobs) fitsLocked(j *job) bool {
	return len(m.running) < m.maxJobs && (m.memCap == 0 || m.reserved+j.memory <= m.memCap)
}

// dispatchLocked starts queued jobs in order while they fit.
func (m *jobs) dispatchLocked() {
	for len(m.queue) > 0 && m.fitsLocked(m.queue[0]) {
		j := m.queue[0]
		m.queue = slices.Delete(m.queue, 0, 1)
		j.running, j.startedAt = true, m.clock()
		m.running[j.id] = j
		m.reserved += j.memory
		close(j.started)
		j.changedLocked()
	}
}

// changedLocked wakes j's watchers.
func (j *job) changedLocked() {
	close(j.changed)
	j.changed = make(chan struct{})
}

// wait blocks until j runs or ctx ends; on ctx's end a queued job leaves the
// queue and the context's cause is returned.
func (m *jobs) wait(ctx context.Context, j *job) error {
	select {
	case <-j.started:
		return nil
	case <-ctx.Done():
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if j.running {
		// Started in the meantime; the caller sees ctx's end as it runs.
		return nil
	}
	if i := slices.Index(m.queue, j); i >= 0 {
		m.queue = slices.Delete(m.queue, i, i+1)
	}
	m.signalIdleLocked()
	return context.Cause(ctx)
}

// done ends j with res, freeing its slot and memory for the queue, and
// keeps it for Watch. The caller calls it once the solve has returned, so
// the memory is no longer in use.
func (m *jobs) done(j *job, res *sokodv1.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := slices.Index(m.queue, j); i >= 0 {
		m.queue = slices.Delete(m.queue, i, i+1)
	}
	if m.running[j.id] == j {
		delete(m.running, j.id)
		m.reserved -= j.memory
		j.running = false
	}
	j.result, j.endedAt = res, m.clock()
	m.pruneLocked()
	if !j.analysis {
		m.finished = append(m.finished, j)
	}
	j.changedLocked()
	close(j.ended)
	m.dispatchLocked()
	m.signalIdleLocked()
}

// pruneLocked forgets finished jobs beyond keepFinished or keepFor.
func (m *jobs) pruneLocked() {
	now := m.clock()
	n := 0
	for n < len(m.finished) && (len(m.finished)-n >= keepFinished || now.Sub(m.finished[n].endedAt) > keepFor) {
		n++
	}
	m.finished = slices.Delete(m.finished, 0, n)
}

// lookup finds a queued, running or recently finished job by id.
func (m *jobs) lookup(id string) *job {
	m.mu.Lock()
	defer m.mu.Unlock()
	if j := m.running[id]; j != nil {
		return j
	}
	if i := slices.IndexFunc(m.queue, func(q *job) bool { return q.id == id }); i >= 0 {
		return m.queue[i]
	}
	m.pruneLocked()
	if i := slices.IndexFunc(m.finished, func(q *job) bool { return q.id == id }); i >= 0 {
		return m.finished[i]
	}
	return nil
}

// jobState is what a watcher of a job sees at one moment.
type jobState struct {
	queuePosition int           // from 1 while queued, else 0
	started       bool          // it left the queue to run
	queued        time.Duration // the time it waited, once it runs
	progress      *solver.Event
	seq           uint64
	result        *sokodv1.Result
	changed       <-chan struct{}
}

// state returns j's state and a channel closed at its next change.
func (m *jobs) state(j *job) jobState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := jobState{started: !j.startedAt.IsZero(), progress: j.progress, seq: j.progressSeq,
		result: j.result, changed: j.changed}
	if i := slices.Index(m.queue, j); i >= 0 {
		st.queuePosition = i + 1
	}
	if !j.startedAt.IsZero() {
		st.queued = j.startedAt.Sub(j.submitted)
	}
	return st
}

func (m *jobs) signalIdleLocked() {
	if len(m.running) == 0 && len(m.queue) == 0 {
		close(m.idle)
		m.idle = make(chan struct{})
	}
}

// setProgress records a running job's latest progress for listings and
// watchers.
func (m *jobs) setProgress(j *job, e solver.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j.progress = &e
	j.progressSeq++
	j.changedLocked()
}

// cancel cancels the job with id, queued or running, for p: found is
// false when there is no such job, allowed when p may not control it.
func (m *jobs) cancel(id string, p principal) (found, allowed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.running[id]
	if j == nil {
		if i := slices.IndexFunc(m.queue, func(q *job) bool { return q.id == id }); i >= 0 {
			j = m.queue[i]
		}
	}
	if j == nil {
		return false, false
	}
	if !p.mayControl(j.owner) {
		return true, false
	}
	j.cancel(errCancelled)
	return true, true
}

// close refuses new jobs and cancels every queued and running one.
func (m *jobs) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for _, j := range m.running {
		j.cancel(errShutdown)
	}
	for _, j := range m.queue {
		j.cancel(errShutdown)
	}
}

// jobView is a job as listings show it.
type jobView struct {
	seq                uint64
	id, title          string
	objective          engine.Objective
	heuristic          string
	memory             int64
	running            bool
	submitted, started time.Time
	progress           *solver.Event
}

// snapshot is the admission state at one moment.
type snapshot struct {
	jobs              []jobView // running in admission order, then queued in order
	maxJobs, queueCap int
	reserved, memCap  int64
	// running and queued count every job, analyses included.
	running, queued int
}

// counts returns the admission state without the jobs' views.
func (m *jobs) counts() snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return snapshot{maxJobs: m.maxJobs, queueCap: m.queueCap, reserved: m.reserved, memCap: m.memCap,
		running: len(m.running), queued: len(m.queue)}
}

func (m *jobs) snapshot() snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := snapshot{maxJobs: m.maxJobs, queueCap: m.queueCap, reserved: m.reserved, memCap: m.memCap}
	view := func(j *job) jobView {
		return jobView{seq: j.seq, id: j.id, title: j.title, objective: j.objective, heuristic: j.heuristic, memory: j.memory,
			running: j.running, submitted: j.submitted, started: j.startedAt, progress: j.progress}
	}
	var running []jobView
	for _, j := range m.running {
		if !j.analysis {
			running = append(running, view(j))
		}
	}
	slices.SortFunc(running, func(a, b jobView) int { return cmp.Compare(a.seq, b.seq) })
	s.jobs = running
	for _, j := range m.queue {
		if !j.analysis {
			s.jobs = append(s.jobs, view(j))
		}
	}
	return s
}

// idleChan returns a channel closed when no job is queued or running, now
// or later.
func (m *jobs) idleChan() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.running) == 0 && len(m.queue) == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return m.idle
}
