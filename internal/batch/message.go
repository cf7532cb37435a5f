package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// SolveOptions are the solve options of every job of a batch. Zero values mean
// the worker's own: a worker lowers a budget above its limits to them, as
// the daemon does.
type SolveOptions struct {
	// Objective is "any" or "pushes".
	Objective string `json:"objective"`
	// Strategy, Heuristic and Deadlocks name the search's order and
	// components; "" and none mean the defaults.
	Strategy  string   `json:"strategy,omitempty"`
	Heuristic string   `json:"heuristic,omitempty"`
	Deadlocks []string `json:"deadlocks,omitempty"`
	// Planners are the fall-back planners in order; none means the
	// worker's fallback.planners, ["none"] means no fall-back.
	Planners []string `json:"planners,omitempty"`
	// TimeMillis, MemoryBytes and Nodes are a solve's budget.
	TimeMillis  int64 `json:"time_ms,omitempty"`
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	Nodes       int64 `json:"nodes,omitempty"`
}

// Time is the time budget, 0 for the worker's.
func (o SolveOptions) Time() time.Duration { return time.Duration(o.TimeMillis) * time.Millisecond }

// Ref names a job and says where its level came from. A result carries
// its job's.
type Ref struct {
	// Batch is the batch's id; ID is the job's, unique across batches. A
	// result of a malformed message that has no id gets "invalid-SEQ", its
	// stream sequence.
	Batch string `json:"batch"`
	ID    string `json:"id"`
	// Index is the job's 1-based place in its batch; 0 marks a result that
	// stands for no job of the batch (a malformed message).
	Index int `json:"index"`
	// File and Level say where the level was read: the path given to
	// submit and the level's 1-based number in it.
	File  string `json:"file"`
	Level int    `json:"level"`
	Title string `json:"title,omitempty"`
	// Text is the level as a SOK block (title, board, notes, stored
	// solutions); results carry it so that they can be checked and written
	// as a SOK collection without the jobs.
	Text string `json:"text,omitempty"`
}

// Job is one message on the work queue: one level to solve.
type Job struct {
	Ref
	Options SolveOptions `json:"options"`
}

// The statuses of a result.
const (
	StatusSolved     = "solved"
	StatusUnsolvable = "unsolvable"
	StatusGaveUp     = "gave_up"
	// StatusInvalidLevel: the level text is not a level the solver takes.
	StatusInvalidLevel = "invalid_level"
	// StatusInvalidJob: the message is not a job (malformed JSON, missing
	// fields, unknown options).
	StatusInvalidJob = "invalid_job"
	// StatusFailed: an internal error, or workers died on the job too often.
	StatusFailed = "failed"
)

// Result is one message on the results stream: what became of one job.
type Result struct {
	Ref
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Solution is LURD, replayed by the worker's solver; empty unless
	// solved.
	Solution   string `json:"solution,omitempty"`
	Moves      int    `json:"moves"`
	Pushes     int    `json:"pushes"`
	BoxLines   int    `json:"box_lines"`
	BoxChanges int    `json:"box_changes"`
	Optimal    bool   `json:"optimal"`
	// FoundBy names the component that settled the level, or "store".
	FoundBy string  `json:"found_by,omitempty"`
	Nodes   int64   `json:"nodes"`
	Seconds float64 `json:"seconds"`
	// Worker names the worker (host, process, slot); Delivery counts the
	// deliveries of the job, 1 unless a worker before it died or let go.
	Worker   string `json:"worker"`
	Delivery int    `json:"delivery"`
}

// Batch is a submitted batch, as the batch table keeps it.
type Batch struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Files   []string  `json:"files"`
	// Levels is the number of jobs.
	Levels  int          `json:"levels"`
	Options SolveOptions `json:"options"`
	// Complete is false while submit is putting the jobs on the queue; a
	// batch left incomplete lost its submitter midway.
	Complete bool `json:"complete"`
}

// validID is the form of a batch id: a NATS subject token and a key of the
// batch table.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckID reports whether id can name a batch.
func CheckID(id string) error {
	if !validID.MatchString(id) {
		return fmt.Errorf("batch id %q: use 1 to 64 letters, digits, '-' and '_'", id)
	}
	return nil
}

// jobID is the id of a batch's job number index.
func jobID(batch string, index int) string { return fmt.Sprintf("%s-%d", batch, index) }

// decodeJob reads a job message received on subject.
func decodeJob(subject string, data []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("not a job: %w", err)
	}
	switch {
	case j.ID == "":
		return &j, errors.New("not a job: no id")
	case j.Batch != batchOf(subject):
		return &j, fmt.Errorf("job of batch %q on the subject of batch %q", j.Batch, batchOf(subject))
	case strings.TrimSpace(j.Text) == "":
		return &j, errors.New("job has no level text")
	}
	return &j, nil
}

// batchOf returns the batch id token of a job or result subject.
func batchOf(subject string) string {
	return subject[strings.LastIndexByte(subject, '.')+1:]
}
