package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Batch components: knowledge that does not compile to tables (a learned
// model, a pattern database queried whole, a detector in another language)
// answers for many positions per call, since one call to a plugin costs
// far more than the search spends on a position. A heuristic that only
// scores in batches is a Heuristic with an Estimator; a detector that
// judges in batches is a Deadlocks with a Checker.
//
// The search then holds back the children it generates: each is stored in
// the table as usual (so duplicates are found) but queued in the open lists
// only once its batch is answered. A batch is sent when it holds
// Options.BatchSize positions, when the open lists run dry, and under
// ObjectivePushes before a solved position is accepted, so that no child
// with a smaller f waits unqueued. The order of the search therefore
// changes: the states expanded while a batch fills are chosen among those
// already queued, without the children of the last expansions, and the
// children of one batch enter the lists together. A* stays admissible (a
// goal is accepted only with every child queued), and the bound of a
// state popped is the one it was queued with, never computed again.

// Batch is positions of one level packed as the plugin protocol packs them:
// each the player's square then the boxes' squares, 1+Boxes squares.
type Batch struct {
	Boxes int
	Data  []uint16
}

// Len is the number of positions.
func (b Batch) Len() int {
	if b.Boxes < 1 {
		return 0
	}
	return len(b.Data) / (1 + b.Boxes)
}

// Estimator scores positions in batches: the heuristic of a Heuristic that
// does not compile to tables.
type Estimator interface {
	// Estimate writes the bound of position i of states to out[i] (at most
	// MaxEstimate), or DeadEnd when no solution can be reached from it.
	// len(out) is states.Len().
	Estimate(ctx context.Context, states Batch, out []uint32) error
}

// Checker judges positions in batches: the part of a deadlock detector that
// does not compile to tables.
type Checker interface {
	// Check sets out[i] when position i of states is a deadlock. len(out)
	// is states.Len(); it comes cleared.
	Check(ctx context.Context, states Batch, out []bool) error
}

// DeadEnd is the estimate of a position from which no solution can be
// reached.
const DeadEnd = ^uint32(0)

// MaxEstimate is the largest estimate other than DeadEnd, as large as a
// path may be long.
const MaxEstimate = 0xFFFE

// DefaultBatchSize is the positions sent in one call when
// Options.BatchSize is 0: enough that the cost of a plugin call is spread
// thin, few enough that a batch fills within a few hundred expansions.
const DefaultBatchSize = 1024

// BatchError is the failure of a batch component during a search: a call
// that returned an error, or an answer out of range. Solve returns it, and
// no result: nothing the component said can be relied on.
type BatchError struct {
	// Component is the heuristic's or the detector's name.
	Component string
	// Op is OpEstimate or OpCheck.
	Op  string
	Err error
}

// The operations of a BatchError.
const (
	OpEstimate = "estimate"
	OpCheck    = "check"
)

func (e *BatchError) Error() string {
	return fmt.Sprintf("engine: %s %s: %v", e.Op, e.Component, e.Err)
}

// Unwrap returns the component's error.
func (e *BatchError) Unwrap() error { return e.Err }

// batcher holds the children waiting for a batch to be answered, and what
// the batches cost.
type batcher struct {
	est        Estimator // nil: the bound comes from the tables
	estName    string
	admissible bool // the estimator's dead ends are proofs
	checks     []Checker
	checkNames []string
	trusted    []bool // a checker's deadlocks are proofs
	size       int
	stride     int // 1 + boxes

	// The children waiting, in arrival order: record, g, bound (from the
	// tables; unused with an estimator), the packing term and tie the
	// packing search queued them with, and the positions.
	recs []uint32
	gs   []int32
	hs   []int32
	pks  []int32
	ties []int32
	data []uint16
	minF int // the least A* key of their parents, a lower bound for them

	out  []uint32
	dead []bool

	batches, states, pruned int64
	wait                    time.Duration
	// batches0 and wait0 are the counts of the searches before this one
	// in the same Solve, for progress reports.
	batches0 int64
	wait0    time.Duration
	// untrusted names the component whose unproven verdict pruned a
	// position, "" while none did.
	untrusted string
	err       *BatchError
}

// newBatcher returns the batcher of a search with heuristic h and
// detectors ds, or nil when none of them works in batches.
func newBatcher(h *Heuristic, ds []*Deadlocks, size, boxes int) *batcher {
	bt := &batcher{est: h.Estimator, estName: h.Name, admissible: h.Admissible}
	for _, d := range ds {
		if d.Checker != nil {
			bt.checks = append(bt.checks, d.Checker)
			bt.checkNames = append(bt.checkNames, d.Name)
			bt.trusted = append(bt.trusted, d.Trusted)
		}
	}
	if bt.est == nil && len(bt.checks) == 0 {
		return nil
	}
	if size <= 0 {
		size = DefaultBatchSize
	}
	bt.size, bt.stride = size, 1+boxes
	bt.recs = make([]uint32, 0, size)
	bt.gs = make([]int32, 0, size)
	bt.hs = make([]int32, 0, size)
	bt.pks = make([]int32, 0, size)
	bt.ties = make([]int32, 0, size)
	bt.data = make([]uint16, 0, size*bt.stride)
	bt.out = make([]uint32, size)
	bt.dead = make([]bool, size)
	return bt
}

// zeroHeuristic is what the evaluator runs when an estimator gives the
// bound: all costs zero, so the tables' bound is 0 and never a deadlock.
func zeroHeuristic(b *Board, h *Heuristic) *Heuristic {
	return &Heuristic{Name: h.Name, Costs: make([]uint16, b.Squares*len(b.Goals)), Rule: RuleSumMin, Admissible: h.Admissible}
}

// checkBatch validates the batch components of opts.
func checkBatch(h *Heuristic, opts Options) error {
	batch := h.Estimator != nil
	for _, d := range opts.Deadlocks {
		batch = batch || d.Checker != nil
	}
	switch {
	case !batch:
		return nil
	case h.Estimator != nil && (len(h.Costs) > 0 || len(h.RegionCosts) > 0 || len(h.Penalties) > 0):
		return fmt.Errorf("engine: heuristic %q has both an estimator and tables", h.Name)
	case opts.Strategy == StrategyIDA:
		return fmt.Errorf("engine: the ida strategy cannot use components that answer in batches")
	case opts.Strategy == StrategyPacking && h.Estimator != nil:
		return fmt.Errorf("engine: the packing search cannot use a heuristic that answers in batches (its order needs each bound at once)")
	case opts.BatchSize < 0:
		return fmt.Errorf("engine: batch size %d", opts.BatchSize)
	}
	return nil
}

// pending is the number of children waiting for their batch; 0 without a
// batcher.
func (bt *batcher) pending() int {
	if bt == nil {
		return 0
	}
	return len(bt.recs)
}

// queuedBound returns the bound of the state just popped, under an
// estimator, from the list it was queued in with key f and g pushes: the
// bound it was queued with, read back from its key, since estimators are
// not asked twice.
func (s *searcher) queuedBound(f, g int) int {
	switch s.kinds[s.popped] {
	case byBound:
		return f
	case byWeighted:
		return (f - g) / s.weight
	}
	return f - g
}

// queueChild holds child record r, with g pushes and bound h (from the
// tables), for the next batch: a batch component must see it before it is
// queued. The child is the current position with box i moved to square
// to and the player on last; pf is its parent's A* key. It returns a
// reason to end the search, or "".
func (s *searcher) queueChild(r uint32, g, h, pf, i int, to, last uint16) string {
	bt := s.bt
	if s.onGoal-goalAt(s, s.boxes[i])+goalAt(s, to) == len(s.boxes) {
		// Solved: no estimate or check can say more.
		if !s.enqueue(r, g, 0) {
			return ReasonMemory
		}
		return ""
	}
	if len(bt.recs) == 0 || pf < bt.minF {
		bt.minF = pf
	}
	tie := g
	if s.pk.on {
		tie = len(s.pathRec)
	}
	bt.recs = append(bt.recs, r)
	bt.gs = append(bt.gs, int32(g))
	bt.hs = append(bt.hs, int32(h))
	bt.pks = append(bt.pks, int32(s.pkTerm))
	bt.ties = append(bt.ties, int32(tie))
	o := len(bt.data)
	bt.data = bt.data[:o+bt.stride]
	bt.data[o] = last
	copy(bt.data[o+1:], s.boxes)
	bt.data[o+1+i] = to
	if len(bt.recs) < bt.size {
		return ""
	}
	return s.flush()
}

func goalAt(s *searcher, sq uint16) int {
	if s.goals[sq] >= 0 {
		return 1
	}
	return 0
}

// flush sends the waiting children to the checkers, then the survivors to
// the estimator, and queues them. It returns a reason to end the search,
// or "".
func (s *searcher) flush() string {
	bt := s.bt
	// A child whose record was reached more cheaply since waits again
	// under its new g: this entry is stale.
	n := 0
	for k, r := range bt.recs {
		if int32(s.tt.slots[r].g) == bt.gs[k] {
			bt.keep(n, k)
			n++
		}
	}
	bt.truncate(n)
	for c, chk := range bt.checks {
		if n == 0 {
			break
		}
		dead := bt.dead[:n]
		clear(dead)
		if reason := s.call(func(ctx context.Context) error {
			return chk.Check(ctx, Batch{Boxes: bt.stride - 1, Data: bt.data}, dead)
		}, bt.checkNames[c], OpCheck); reason != "" {
			return reason
		}
		m := 0
		for k := range n {
			if dead[k] {
				s.tt.slots[bt.recs[k]].setClosed()
				bt.pruned++
				if !bt.trusted[c] && bt.untrusted == "" {
					bt.untrusted = "deadlock detector " + bt.checkNames[c]
				}
				continue
			}
			bt.keep(m, k)
			m++
		}
		n = m
		bt.truncate(n)
	}
	if bt.est != nil && n > 0 {
		out := bt.out[:n]
		if reason := s.call(func(ctx context.Context) error {
			return bt.est.Estimate(ctx, Batch{Boxes: bt.stride - 1, Data: bt.data}, out)
		}, bt.estName, OpEstimate); reason != "" {
			return reason
		}
		for k, v := range out {
			switch {
			case v == DeadEnd:
				bt.hs[k] = infCost
			case v > MaxEstimate:
				return s.fail(bt.estName, OpEstimate, fmt.Errorf("bound %d for position %d of %d, above the largest, %d", v, k, n, MaxEstimate))
			default:
				bt.hs[k] = int32(v)
			}
		}
	}
	for k, r := range bt.recs {
		if bt.hs[k] >= infCost {
			s.tt.slots[r].setClosed()
			bt.pruned++
			if !bt.admissible && bt.untrusted == "" {
				bt.untrusted = "heuristic " + bt.estName
			}
			continue
		}
		s.pkTerm = int(bt.pks[k])
		for q, list := range s.queues {
			if !list.push(r, s.priority(s.kinds[q], int(bt.gs[k]), int(bt.hs[k])), int(bt.ties[k])) {
				return ReasonMemory
			}
		}
	}
	bt.truncate(0)
	return ""
}

// keep moves waiting child k to place n (n <= k).
func (bt *batcher) keep(n, k int) {
	if n == k {
		return
	}
	bt.recs[n], bt.gs[n], bt.hs[n], bt.pks[n], bt.ties[n] = bt.recs[k], bt.gs[k], bt.hs[k], bt.pks[k], bt.ties[k]
	copy(bt.data[n*bt.stride:(n+1)*bt.stride], bt.data[k*bt.stride:(k+1)*bt.stride])
}

// truncate keeps the first n waiting children.
func (bt *batcher) truncate(n int) {
	bt.recs, bt.gs, bt.hs, bt.pks, bt.ties = bt.recs[:n], bt.gs[:n], bt.hs[:n], bt.pks[:n], bt.ties[:n]
	bt.data = bt.data[:n*bt.stride]
}

// call makes one batch call, counting it and the time it took. It returns
// a reason to end the search, or "".
func (s *searcher) call(f func(context.Context) error, name, op string) string {
	bt := s.bt
	var began time.Time
	if s.clock != nil {
		began = s.clock()
	}
	err := f(s.ctx)
	if s.clock != nil {
		bt.wait += s.clock().Sub(began)
	}
	bt.batches++
	bt.states += int64(len(bt.data) / bt.stride)
	switch {
	case err == nil:
		return ""
	case s.overdue():
		// The search's context ended during the call: the call's failure
		// is the search's ending, not the component's.
		return s.endReason()
	}
	return s.fail(name, op, err)
}

// fail records the failure of a batch component and returns the reason
// the search ends with; Solve returns the failure itself.
func (s *searcher) fail(name, op string, err error) string {
	s.bt.err = &BatchError{Component: name, Op: op, Err: err}
	return s.bt.err.Error()
}

// flushPending flushes when children are waiting: end reports whether it
// did (the search then goes on unless reason is set).
func (s *searcher) flushPending() (reason string, flushed bool) {
	if s.bt.pending() == 0 {
		return "", false
	}
	return s.flush(), true
}

// solvedFirst is called with a solved state popped under ObjectivePushes
// (record r, key f, g pushes): while children wait, it queues the state
// again and flushes, since one of them may have a smaller f. wait is true
// when it did; reason then ends the search unless "".
func (s *searcher) solvedFirst(r uint32, f, g int) (reason string, wait bool) {
	if s.bt.pending() == 0 {
		return "", false
	}
	if !s.queues[s.popped].push(r, f, g) {
		return ReasonMemory, true
	}
	return s.flush(), true
}

// rootBatch shows the start position to the batch components: h0 is its
// bound from the tables, replaced by the estimate under an estimator. end
// is true when that decides the search.
func (s *searcher) rootBatch(h0 int) (h int, st Status, reason string, end bool) {
	bt := s.bt
	bt.data = append(bt.data[:0], s.player)
	bt.data = append(bt.data, s.boxes...)
	defer bt.truncate(0)
	for c, chk := range bt.checks {
		dead := bt.dead[:1]
		dead[0] = false
		if reason := s.call(func(ctx context.Context) error {
			return chk.Check(ctx, Batch{Boxes: bt.stride - 1, Data: bt.data}, dead)
		}, bt.checkNames[c], OpCheck); reason != "" {
			return 0, GaveUp, reason, true
		}
		if dead[0] {
			bt.pruned++
			reason := "the start position is a deadlock for detector " + bt.checkNames[c]
			if !bt.trusted[c] {
				return 0, GaveUp, reason + noProof("deadlock detector "+bt.checkNames[c]), true
			}
			return 0, Unsolvable, reason, true
		}
	}
	if bt.est == nil {
		return h0, GaveUp, "", false
	}
	out := bt.out[:1]
	if reason := s.call(func(ctx context.Context) error {
		return bt.est.Estimate(ctx, Batch{Boxes: bt.stride - 1, Data: bt.data}, out)
	}, bt.estName, OpEstimate); reason != "" {
		return 0, GaveUp, reason, true
	}
	switch v := out[0]; {
	case v == DeadEnd:
		bt.pruned++
		reason := "heuristic " + bt.estName + " finds no solution from the start position"
		if !bt.admissible {
			return 0, GaveUp, reason + noProof("heuristic "+bt.estName), true
		}
		return 0, Unsolvable, reason, true
	case v > MaxEstimate:
		return 0, GaveUp, s.fail(bt.estName, OpEstimate, fmt.Errorf("bound %d for the start position, above the largest, %d", v, MaxEstimate)), true
	default:
		return int(v), GaveUp, "", false
	}
}

// noProof is the reason's suffix when component's unproven verdicts
// pruned positions.
func noProof(component string) string {
	return "; positions were pruned by " + strings.TrimSpace(component) + ", which sokod cannot check, so this is no proof"
}

// untrustedNote is the reason's suffix when a batch component's unproven
// verdicts pruned positions, "" otherwise.
func (bt *batcher) untrustedNote() string {
	if bt == nil || bt.untrusted == "" {
		return ""
	}
	return noProof(bt.untrusted)
}

// failure is the batch component failure that ended the search, or nil.
func (bt *batcher) failure() error {
	if bt == nil || bt.err == nil {
		return nil
	}
	return bt.err
}

// lowest folds the waiting children into f, the least A* key queued (-1
// for none): their parents' keys bound theirs from below.
func (bt *batcher) lowest(f int) int {
	if bt.pending() == 0 || f >= 0 && f <= bt.minF {
		return f
	}
	return bt.minF
}

// addStats adds the batches' counts to st.
func (bt *batcher) addStats(st *Stats) {
	if bt == nil {
		return
	}
	st.Batches += bt.batches
	st.BatchStates += bt.states
	st.BatchWait += bt.wait
	st.BatchPruned += bt.pruned
}

// progress fills in the batches' counts of a progress report.
func (bt *batcher) progress(p *Progress) {
	if bt == nil {
		return
	}
	p.Batches, p.BatchWait = bt.batches0+bt.batches, bt.wait0+bt.wait
}

// carry takes over the batch counts of the search before (solveStages) for
// progress reports, which go on from it.
func (bt *batcher) carry(prev *batcher) {
	if bt == nil || prev == nil {
		return
	}
	bt.batches0, bt.wait0 = prev.batches0+prev.batches, prev.wait0+prev.wait
}

// tablesOf is the heuristic the evaluator runs: h, or under an estimator
// zeroHeuristic.
func tablesOf(b *Board, h *Heuristic) *Heuristic {
	if h.Estimator == nil {
		return h
	}
	return zeroHeuristic(b, h)
}

// estimateOne is LowerBound for a heuristic with an estimator.
func estimateOne(ctx context.Context, h *Heuristic, boxes []uint16, player uint16) (int, bool, error) {
	out := make([]uint32, 1)
	data := append([]uint16{player}, boxes...)
	if err := h.Estimator.Estimate(ctx, Batch{Boxes: len(boxes), Data: data}, out); err != nil {
		return 0, false, &BatchError{Component: h.Name, Op: OpEstimate, Err: err}
	}
	switch {
	case out[0] == DeadEnd:
		return 0, false, nil
	case out[0] > MaxEstimate:
		return 0, false, &BatchError{Component: h.Name, Op: OpEstimate, Err: fmt.Errorf("bound %d, above the largest, %d", out[0], MaxEstimate)}
	}
	return int(out[0]), true, nil
}
