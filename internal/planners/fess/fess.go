// Package fess is the built-in "fess" planner: feature-space searches
// after three of Festival's strategies, A, D and E (Yaron Shoham's
// Festival 3.1; the FESS algorithm of Shoham and Schaeffer, "The FESS
// Algorithm: A Feature Based Approach to Single-Agent Search", IEEE CoG
// 2020), written from Festival's public sources. A gets half of the
// plan's time, D and E a quarter each.
//
// Strategy A: a base search runs backwards from the solved position: its
// moves pull one box any distance, and a box pulled onto a square some box
// starts on (a base) may leave the board there. Its path to the position
// with the fewest boxes left, read forwards, is the parking plan: which box
// goes where, and where boxes wait while others pass. The forward search
// then follows the plan: a feature-space search over push macro moves
// whose cells are (steps of the plan done, regions of free squares, boxes
// out of plan), whose advisors propose the moves that improve a feature,
// and which, when it meets a position the base search reached with every
// box on the board (the perimeter), follows the base search's path to the
// end.
//
// Strategies D and E (hf.go): a backward search spreads the boxes out
// (E's also favours free squares on cycles); the forward HF search heads
// for the best position it reached and meets its tree on the way.
//
// The searches share Festival's tree (tree.go): each position's children
// are generated and scored at once, an advised move costs 0 and any other
// 1, and the search visits its cells in turns, every other pick in the
// cell of the best position so far, taking there the least weight.
package fess

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// Planner is the planner. The zero value is ready; each Plan is
// independent.
type Planner struct{}

// New returns the planner.
func New() sdk.Planner { return Planner{} }

// baseShare is the base search's share of the time (Festival's third).
const baseShare = 1.0 / 3

// nodeBytes is what one node of a tree takes with its share of the
// children, expansions and tables.
const nodeBytes = 160

// Plan solves req.Level within req.Budget, verifying any solution with
// host before returning it.
func (Planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	return solve(ctx, req, host, progress, defaultStrategies)
}

// strategy is one of fess's strategies: it runs within its leg of the run
// and returns the solved search and expansion, or -1 and why not.
type strategy struct {
	name string
	// share is its share of the time left when it starts.
	share float64
	run   func(*strategies) (*search, int32, string)
}

// defaultStrategies are the strategies a plan runs in turn, in
// Festival's order.
var defaultStrategies = []strategy{
	{"strategy A (parking plan)", strategyAShare, (*strategies).bases},
	{"strategy D (spread boxes)", spreadShare, (*strategies).spreadOut},
	{"strategy E (spread boxes round cycles)", 1, (*strategies).spreadCycles},
}

// solve is Plan with the strategies to run.
func solve(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress), strats []strategy) (*sdk.PlanResult, error) {
	b, err := macro.Board(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("fess: %w", err)
	}
	if b.Impossible != "" {
		return &sdk.PlanResult{Status: sdk.PlanUnsolvable, Reason: b.Impossible}, nil
	}
	run := macro.NewRun(ctx, req, progress)
	rctx, cancel := run.Context()
	defer cancel()
	mem := int64(min(req.Budget.MemoryBytes, 1<<40))
	if mem == 0 {
		mem = macro.DefaultMemory
	}
	lv, err := newLevel(rctx, req.Level, mem/2)
	if errors.Is(err, errNoPlan) {
		return macro.GaveUp(run, err.Error()), nil
	}
	if err != nil {
		return macro.GaveUp(run, run.Why()), nil
	}
	if lv.solvedPush(lv.start) {
		return macro.Verified(ctx, host, "")
	}
	// The level's tables come first; a tree gets four fifths of the rest:
	// the perimeter, up to a quarter of the base search's tree, outlives
	// it beside the forward search's.
	maxNodes := int(max((mem-lv.tableBytes())*4/5/nodeBytes, 1<<12))

	// The hotspot table may take a quarter of the time, as in Festival.
	hctx, hcancel := rctx, context.CancelFunc(func() {})
	if req.Budget.Time > 0 {
		hctx, hcancel = context.WithTimeout(rctx, req.Budget.Time/4)
	}
	hot := newHotspots(hctx, lv)
	hcancel()

	st := &strategies{lv: lv, run: run, hot: hot, tests: newMacroTests(lv, macro.NewGen(b)), maxNodes: maxNodes}
	var reasons []string
	for i, strat := range strats {
		share := strat.share
		if i == len(strats)-1 {
			share = 1
		}
		if run.Over() {
			break
		}
		end := run.Leg(share)
		s, e, why := strat.run(st)
		end()
		if e >= 0 {
			lurd, err := solution(lv, s.t, e)
			if err != nil {
				return nil, fmt.Errorf("fess: %w", err)
			}
			return macro.Verified(ctx, host, lurd)
		}
		reasons = append(reasons, strat.name+": "+why)
	}
	return macro.GaveUp(run, strings.Join(reasons, "; ")), nil
}

// strategyAShare is strategy A's share of the time: the rest goes to
// strategies D and E.
const strategyAShare = 0.5

// spreadShare is strategy D's share of the time A leaves: E gets the
// rest. The two differ in one feature, and each solves levels the other
// does not.
const spreadShare = 0.5

// strategies holds what fess's strategies share.
type strategies struct {
	lv       *level
	run      *macro.Run
	hot      *hotspots
	tests    *macroTests
	maxNodes int
}

// bases is Festival's strategy A: the base search for a parking plan,
// then the forward search that follows it, run again without the corral
// restriction and the inefficiency test if it runs out of positions. It
// returns the solved search and expansion, or -1 and why not.
func (st *strategies) bases() (*search, int32, string) {
	lv, run := st.lv, st.run
	end := run.Leg(baseShare)
	back := backward(lv, newSearch(lv, modeBase, nil, nil, nil, nil, run, nil, st.maxNodes))
	end()
	// The base search's tree may be as large as the budget allows: free
	// it before the forward search fills another.
	runtime.GC()
	if back.plan == nil {
		why := back.why
		if why == "" {
			why = "the base search made no plan"
		}
		return nil, -1, why
	}
	run.Message = back.plan.String()
	reasons := []string{back.plan.String()}
	for _, lenient := range []bool{false, true} {
		s := newSearch(lv, modeBases, back.plan, nil, st.hot, back.per, run, st.tests, st.maxNodes)
		s.mv.lenient = lenient
		e, why := forwardSearch(lv, s)
		if e >= 0 {
			return s, e, ""
		}
		name := "forward search"
		if lenient {
			// Festival's other strategies search without the corral
			// restriction and the inefficiency test; once the search
			// with them has run out of positions, so does fess.
			name = "again without corral and inefficiency pruning"
		}
		reasons = append(reasons, fmt.Sprintf("%s: %s (%d feature cells)", name, why, len(s.cells.keys)))
		if why != exhausted {
			break
		}
	}
	return nil, -1, strings.Join(reasons, "; ")
}

// spreadOut is Festival's strategy D: spread with modeSpread.
func (st *strategies) spreadOut() (*search, int32, string) { return st.spread(modeSpread) }

// spreadCycles is Festival's strategy E: spread with modeBicon.
func (st *strategies) spreadCycles() (*search, int32, string) { return st.spread(modeBicon) }

// spread is Festival's strategy D (m modeSpread) or E (modeBicon): a
// backward search that spreads the boxes out, its best position the
// imagined one, then the HF search towards it: best-first (every move
// costs 0) for three quarters of what is left, then weighted, from the
// start again (Festival's forward_search_control with HF_SEARCH).
func (st *strategies) spread(m mode) (*search, int32, string) {
	lv, run := st.lv, st.run
	end := run.Leg(baseShare)
	back := backward(lv, newSearch(lv, m, nil, nil, nil, nil, run, nil, st.maxNodes))
	end()
	runtime.GC()
	if back.imagined == nil {
		return nil, -1, back.why
	}
	var reasons []string
	for _, weighted := range []bool{false, true} {
		share := 0.75
		if weighted {
			share = 1
		}
		end := run.Leg(share)
		s := newSearch(lv, modeHF, nil, back.imagined, nil, back.per, run, st.tests, st.maxNodes)
		s.weighted = weighted
		e, why := forwardSearch(lv, s)
		end()
		if e >= 0 {
			return s, e, ""
		}
		reasons = append(reasons, fmt.Sprintf("HF search (weighted %v): %s (%d feature cells)", weighted, why, len(s.cells.keys)))
		if run.Over() {
			break
		}
		runtime.GC()
	}
	return nil, -1, strings.Join(reasons, "; ")
}

// macroTests are the forward search's full deadlock tests: Festival's
// matching with fixed boxes as walls, then the SDK's
// (macro.Gen.Deadlocked) on the host's board.
type macroTests struct {
	lv         *level
	match      *matcher
	w, scratch grid
	gen        *macro.Gen
	pos        *macro.Pos
	boxes      []uint16
}

func newMacroTests(lv *level, gen *macro.Gen) *macroTests {
	return &macroTests{lv: lv, gen: gen, pos: macro.NewPos(gen.Board()), match: newMatcher(lv.boxes),
		w: make(grid, len(lv.start)), scratch: make(grid, len(lv.start))}
}

func (m *macroTests) deadlocked(g grid) bool {
	lv := m.lv
	if !m.match.pushMatched(lv, g, m.w, m.scratch) {
		return true
	}
	m.boxes = m.boxes[:0]
	pl := int32(-1)
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			m.boxes = append(m.boxes, uint16(lv.square[c]))
		}
		if pl < 0 && g[c]&player != 0 {
			pl = lv.square[c]
		}
	}
	for _, sq := range lv.walled {
		m.boxes = append(m.boxes, uint16(sq))
	}
	m.pos.Set(m.boxes, uint16(pl))
	return m.gen.Deadlocked(m.pos)
}
