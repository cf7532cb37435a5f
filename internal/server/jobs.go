package server

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/solver"
)

// Why a job's context ends early; they become the reason of its CANCELLED
// result.
var (
	errCancelled = errors.New("cancelled")
	errShutdown  = errors.New("cancelled: the daemon is shutting down")
)

// errExhausted and errClosed are admission refusals.
var (
	errExhausted = errors.New("every solve slot is taken and the queue is full")
	errClosed    = errors.New("the daemon is shutting down")
)

// job is one admitted solve.
type job struct {
	id        string
	seq       uint64 // admission order
	title     string
	objective engine.Objective
	heuristic string
	// memory is the job's memory budget, what it counts against the cap
	// while it runs.
	memory    int64
	submitted time.Time
	// cancel ends the job's context with a cause (errCancelled,
	// errShutdown).
	cancel context.CancelCauseFunc
	// started is closed when the job leaves the queue to run.
	started chan struct{}

	// Guarded by jobs.mu.
	running   bool
	startedAt time.Time
	progress  *solver.Event
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
	reserved int64 // summed memory of running jobs
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
	j.id = strconv.FormatUint(m.nextID, 10)
	j.submitted = m.clock()
	j.started = make(chan struct{})
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
	}
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

// done ends j, freeing its slot and memory for the queue. The caller calls
// it once the solve has returned, so the memory is no longer in use.
func (m *jobs) done(j *job) {
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
	m.dispatchLocked()
	m.signalIdleLocked()
}

func (m *jobs) signalIdleLocked() {
	if len(m.running) == 0 && len(m.queue) == 0 {
		close(m.idle)
		m.idle = make(chan struct{})
	}
}

// setProgress records a running job's latest progress for listings.
func (m *jobs) setProgress(j *job, e solver.Event) {
	m.mu.Lock()
	j.progress = &e
	m.mu.Unlock()
}

// cancel cancels the job with id, queued or running.
func (m *jobs) cancel(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	j := m.running[id]
	if j == nil {
		if i := slices.IndexFunc(m.queue, func(q *job) bool { return q.id == id }); i >= 0 {
			j = m.queue[i]
		}
	}
	if j == nil {
		return false
	}
	j.cancel(errCancelled)
	return true
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
		running = append(running, view(j))
	}
	slices.SortFunc(running, func(a, b jobView) int { return cmp.Compare(a.seq, b.seq) })
	s.jobs = running
	for _, j := range m.queue {
		s.jobs = append(s.jobs, view(j))
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
