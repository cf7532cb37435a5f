package main

import (
	"fmt"
	"sync"

	"github.com/sokod/sokod/internal/solver"
)

// progressEvent is a progress line of "sokod solve --events".
type progressEvent struct {
	Event        string `json:"event"` // "progress"
	Phase        string `json:"phase"`
	Component    string `json:"component"`
	Nodes        int64  `json:"nodes"`
	Stored       int64  `json:"stored"`
	Depth        int    `json:"depth"`
	LowerBound   int    `json:"lower_bound"`
	MemoryBytes  int64  `json:"memory_bytes"`
	BoxesOnGoals int    `json:"boxes_on_goals"`
	ElapsedMS    int64  `json:"elapsed_ms"`
	// Text is the progress line a terminal shows.
	Text string `json:"text"`
}

// resultEvent is the last line of "sokod solve --events": the --json
// document with "event": "result".
type resultEvent struct {
	Event string `json:"event"` // "result"
	solveOutput
}

// solveReport is how a solve, local or remote, shows its progress and
// result: a live line on a terminal and text, JSON, or events (JSON lines
// on stdout, for a program that drives sokod).
type solveReport struct {
	env    *Env
	asJSON bool
	events bool
	mu     sync.Mutex // orders progress lines written from the solver's goroutine
}

// live reports whether a progress line is drawn on the terminal.
func (r *solveReport) live() bool {
	return !r.asJSON && !r.events && isTerminal(r.env.Stderr)
}

// progress shows one progress event.
func (r *solveReport) progress(e solver.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.events:
		// A line that cannot be written is lost; the result reports the
		// write error.
		_ = writeJSONLine(r.env.Stdout, progressEvent{Event: "progress", Phase: string(e.Phase), Component: e.Component,
			Nodes: e.Nodes, Stored: e.Stored, Depth: e.Depth, LowerBound: e.LowerBound, MemoryBytes: e.Memory,
			BoxesOnGoals: e.BoxesOnGoals, ElapsedMS: e.Elapsed.Milliseconds(), Text: progressLine(e)})
	case r.live():
		fmt.Fprintf(r.env.Stderr, "\r\033[K%s", progressLine(e))
	}
}

// progressFunc is progress, or nil when nothing shows progress.
func (r *solveReport) progressFunc() func(solver.Event) {
	if r.events || r.live() {
		return r.progress
	}
	return nil
}

// clear removes the live line, if any.
func (r *solveReport) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live() {
		fmt.Fprint(r.env.Stderr, "\r\033[K")
	}
}

// result shows the solve's outcome.
func (r *solveReport) result(out solveOutput) error {
	r.clear()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.events:
		return writeJSONLine(r.env.Stdout, resultEvent{Event: "result", solveOutput: out})
	case r.asJSON:
		return writeJSON(r.env.Stdout, out)
	}
	printSolve(r.env.Stdout, out)
	return nil
}
