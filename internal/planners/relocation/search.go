package relocation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// The schedule of a plan.
const (
	// openQuota bounds the opening search's expansions before the
	// relocation starts, openShare its share of the plan's time.
	openQuota = 3000
	openShare = 0.1
	// picksWanted is how many forward positions with one region the
	// direct gaps pair with the spread positions.
	picksWanted = 3
	// directPairs bounds the direct gaps, between the opened forward
	// positions and the RPR spread positions.
	directPairs = 4
	// gapShare is the share of the plan's time a sub-search gets at
	// first, at most maxFirstGap; it doubles every escalateAfter failed
	// gaps, up to maxShare.
	gapShare      = 0.03
	maxShare      = 0.25
	escalateAfter = 6
	// maxFirstGap caps a sub-search's first time: a longer budget would
	// otherwise stretch every early sub-search, and fewer of them would
	// fit before the aims, and a plan could solve a level with a small
	// budget and miss it with a large one.
	maxFirstGap = 450 * time.Millisecond
	// minGapTime is the least time a sub-search gets.
	minGapTime = 30 * time.Millisecond
	// noDeadlineGap is the first sub-search time of a plan without a time
	// budget.
	noDeadlineGap = 300 * time.Millisecond
	// aimSlice is the reverse expansions between two gaps.
	aimSlice = 40
	// gapExpansions bounds a macro gap search's expansions (its time share
	// bounds it too).
	gapExpansions = 20000
)

// pairKey names a gap: a forward node and a reverse node.
type pairKey struct{ f, r int32 }

// solve runs the phases of the plan: the reverse spread, the forward
// opening, the direct gaps, then the aim searches and their gaps until
// the budget is spent. A phase that settles the plan ends it.
func (p *plan) solve(ctx context.Context) (*sdk.PlanResult, error) {
	b, run := p.b, p.run
	if macro.OnGoals(b, b.StartBoxes) == len(b.Goals) {
		return macro.Verified(ctx, p.host, "")
	}
	run.Best = macro.OnGoals(b, b.StartBoxes)
	roots, spread, res, err := p.spreadReverse(ctx)
	if res != nil || err != nil {
		return res, err
	}
	if res, err := p.openForward(ctx); res != nil || err != nil {
		return res, err
	}
	r := p.newRelocation(roots, spread)
	if res, err := r.direct(ctx); res != nil || err != nil {
		return res, err
	}
	r.startAims()
	return r.loop(ctx)
}

// spreadReverse runs RFS, RPR and RSB from each solved position, and
// returns the solved positions (the roots) and the spread positions worth
// a gap; a result settles the plan.
func (p *plan) spreadReverse(ctx context.Context) (roots, spread []int32, res *sdk.PlanResult, err error) {
	run := p.run
	roots = p.rev.roots()
	if len(roots) == 0 {
		// Sound but not a proof the host would take from a planner.
		return nil, nil, p.gaveUp("by the one-box-maze restrictions no solved position can be reached from the start"), nil
	}
	for _, r := range roots {
		if stop, reason := run.Tick(); stop {
			return nil, nil, p.gaveUp(reason), nil
		}
		res := p.rev.rpr(r, run.Expired)
		spread = append(spread, p.spreadCandidates(res)...)
		last := res.nodes[len(res.nodes)-1]
		p.logf("rpr root %d: %d positions, first success %d, %d stuck, last off goals %d regions %d",
			r, len(res.nodes), res.first, res.stuck, p.rev.off[last], p.rev.regionsOf(last))
	}
	if res, err := p.meetReverse(ctx); res != nil || err != nil {
		return nil, nil, res, err
	}
	run.Message = fmt.Sprintf("reverse spread: %d solved positions, %d spread positions", len(roots), len(spread))
	return roots, spread, nil, nil
}

// openForward runs the opening search from the start, for its share of
// the time, until it finds positions with one region; a result settles the
// plan.
func (p *plan) openForward(ctx context.Context) (*sdk.PlanResult, error) {
	run := p.run
	openEnd := time.Now().Add(time.Duration(float64(p.remaining()) * openShare))
	for k := 0; k < openQuota && len(p.fwd.open) == 0 && time.Now().Before(openEnd); k++ {
		if stop, reason := run.Tick(); stop {
			return p.gaveUp(reason), nil
		}
		fid, rid, spent := p.fwd.expand(run, p.rev.store)
		if fid >= 0 {
			if res, err := p.meet(ctx, fid, rid); res != nil || err != nil {
				return res, err
			}
		}
		if spent {
			break
		}
	}
	return nil, nil
}

// relocation is the state of the plan's last phases: the gaps between the
// forward and the reverse side, and the aim searches that bring the two
// sides closer.
type relocation struct {
	p             *plan
	roots, spread []int32
	picks         []int32
	// share is a sub-search's time, which grows as gaps fail (failed
	// counts them) up to maxGap; rootShare is the share the host's plain
	// search to the solved position last had.
	share, rootShare, maxGap time.Duration
	failed                   int
	// tried and macTried are the gaps given to the host's sub-search and
	// to the macro gap search.
	tried, macTried map[pairKey]bool

	// The aim searches: ra reverse, towards forward node fid; fa forward,
	// towards reverse node spreadAim (nil when there is none). gs is the
	// macro gap search.
	fid       int32
	ra        *aimSearch
	fa        *fwdAim
	spreadAim int32
	gs        *gapSearch
	// times are the time spent by the reverse search, the forward search
	// and the gaps; revSpent and fwdSpent mark a search that has run dry;
	// turn alternates the gaps' sources.
	times              [3]time.Duration
	revSpent, fwdSpent bool
	turn               int
}

// The activities of the relocation, in the order of relocation.times.
const (
	actReverse = iota
	actForward
	actGaps
)

// newRelocation starts the relocation from the opened forward positions.
func (p *plan) newRelocation(roots, spread []int32) *relocation {
	r := &relocation{p: p, roots: roots, spread: spread, picks: p.forwardPicks(),
		tried: map[pairKey]bool{}, macTried: map[pairKey]bool{}}
	r.share = min(time.Duration(float64(p.remaining())*gapShare), maxFirstGap)
	if p.deadline.IsZero() {
		r.share = noDeadlineGap
	}
	r.maxGap = time.Duration(float64(p.remaining()) * maxShare)
	return r
}

// direct tries the solved position first, with twice a gap's share (the
// host's plain search from the opened position, which the exhaustive
// search from the start did not have), then the gaps from the opened
// forward positions to the spread ones, closest first.
func (r *relocation) direct(ctx context.Context) (*sdk.PlanResult, error) {
	p := r.p
	r.rootShare = 2 * r.share
	if res, err := p.tryGap(ctx, pairKey{r.picks[0], r.roots[0]}, r.rootShare); res != nil || err != nil {
		return res, err
	}
	direct := p.pairs(r.picks, r.spread)
	for _, pk := range direct[:min(directPairs, len(direct))] {
		if stop, reason := p.run.Tick(); stop {
			return p.gaveUp(reason), nil
		}
		r.tried[pk] = true
		if res, err := p.tryGap(ctx, pk, r.share); res != nil || err != nil {
			return res, err
		}
	}
	return nil, nil
}

// startAims seeds the aim searches: the reverse one towards the first
// forward pick, the forward one towards the most spread reverse position.
func (r *relocation) startAims() {
	p := r.p
	r.fid = r.picks[0]
	pos := macro.NewPos(p.b)
	p.fwd.store.Load(r.fid, pos)
	r.ra = newAimSearch(p.rev, newAim(p.st, r.fid, pos))
	r.ra.seed(p.run.Expired)
	p.ra = r.ra
	r.spreadAim = -1
	if len(r.spread) > 0 {
		r.spreadAim = r.spread[0]
		p.rev.store.Load(r.spreadAim, pos)
		r.fa = newFwdAim(p.fwd, newAimAt(p.st, r.spreadAim, pos))
		r.fa.seed(p.run.Expired)
	}
	r.fwdSpent = r.fa == nil
	r.gs = newGapSearch(p.fwd)
}

// loop gives the reverse aim search, the forward one and the gaps the
// same share of the time, the one behind first, until a solution or the
// end of the budget.
func (r *relocation) loop(ctx context.Context) (*sdk.PlanResult, error) {
	p := r.p
	for {
		act := actGaps
		if !r.revSpent && r.times[actReverse] <= r.times[actGaps] && (r.fwdSpent || r.times[actReverse] <= r.times[actForward]) {
			act = actReverse
		} else if !r.fwdSpent && r.times[actForward] <= r.times[actGaps] {
			act = actForward
		}
		t0 := time.Now()
		var res *sdk.PlanResult
		var err error
		if act == actGaps {
			var idle bool
			res, err, idle = r.gapStep(ctx)
			if res == nil && err == nil && idle {
				r.times[actGaps] = max(r.times[actReverse], r.times[actForward]) // nothing to close yet
				continue
			}
		} else {
			res, err = r.aimStep(ctx, act)
		}
		if res != nil || err != nil {
			return res, err
		}
		r.times[act] += time.Since(t0)
		fbest := -1
		if r.fa != nil {
			fbest = r.fa.best
		}
		p.run.Message = fmt.Sprintf("relocating: %d reverse and %d forward positions, closest %d and %d pushes, %d of %d gaps closed",
			p.rev.store.Len(), p.fwd.store.Len(), r.ra.best, fbest, p.gapsReached, p.gaps)
	}
}

// aimStep expands a slice of the reverse (act actReverse) or the forward
// aim search, stopping at a meeting of the two sides or when the search
// runs dry.
func (r *relocation) aimStep(ctx context.Context, act int) (*sdk.PlanResult, error) {
	p := r.p
	for range aimSlice {
		if stop, reason := p.run.Tick(); stop {
			return p.gaveUp(reason), nil
		}
		var f, rid int32
		var spent bool
		if act == actReverse {
			rid, f, spent = r.ra.expand(p.run, p.fwd.store)
		} else {
			f, rid, spent = r.fa.expand(p.run, p.rev.store)
		}
		if rid >= 0 {
			if res, err := p.meet(ctx, f, rid); res != nil || err != nil {
				return res, err
			}
		}
		if spent {
			r.revSpent = r.revSpent || act == actReverse
			r.fwdSpent = r.fwdSpent || act == actForward
			return nil, nil
		}
	}
	return nil, nil
}

// The sources of gaps, which gapStep takes in turn.
const (
	srcMacro   = iota // the macro gap search to the reverse position closest to the aim
	srcReverse        // the host's sub-search to the closest reverse one with one region
	srcForward        // the sub-search from the forward position closest to the spread one
)

// gapStep tries one gap. Each time the gaps' share has grown it first
// tries the solved position again (the host's plain search from the opened
// position sometimes needs only more time; one search serves every root,
// its targets being the goals whichever region the root's player is in).
// idle reports that there was no gap to try.
func (r *relocation) gapStep(ctx context.Context) (res *sdk.PlanResult, err error, idle bool) {
	p := r.p
	if r.share > r.rootShare {
		r.rootShare = r.share
		if stop, reason := p.run.Tick(); stop {
			return p.gaveUp(reason), nil, false
		}
		res, err := p.tryGap(ctx, pairKey{r.fid, r.roots[0]}, r.share)
		return res, err, false
	}
	k, src := r.nextGap()
	if src < 0 {
		if r.revSpent && r.fwdSpent {
			return p.gaveUp("search space exhausted"), nil, false
		}
		return nil, nil, true
	}
	if stop, reason := p.run.Tick(); stop {
		return p.gaveUp(reason), nil, false
	}
	if src == srcMacro {
		res, err = r.macroGap(ctx, k)
	} else {
		r.tried[k] = true
		res, err = p.tryGap(ctx, k, r.share)
	}
	if res != nil || err != nil {
		return res, err, false
	}
	if r.failed++; r.failed%escalateAfter == 0 {
		r.share = min(2*r.share, max(r.maxGap, r.share))
	}
	return nil, nil, false
}

// nextGap returns the next gap not tried yet, from the sources in turn,
// or a negative source when none has one.
func (r *relocation) nextGap() (k pairKey, src int) {
	for range 3 {
		r.turn = (r.turn + 1) % 3
		switch {
		case r.turn == srcMacro:
			for rid := r.ra.nextMacro(); rid >= 0; rid = r.ra.nextMacro() {
				if k = (pairKey{r.fid, rid}); !r.macTried[k] {
					return k, srcMacro
				}
			}
		case r.turn == srcReverse:
			for rid := r.ra.nextGap(); rid >= 0; rid = r.ra.nextGap() {
				if k = (pairKey{r.fid, rid}); !r.tried[k] {
					return k, srcReverse
				}
			}
		case r.fa != nil:
			for f := r.fa.nextGap(); f >= 0; f = r.fa.nextGap() {
				if k = (pairKey{f, r.spreadAim}); !r.tried[k] {
					return k, srcForward
				}
			}
		}
	}
	return k, -1
}

// macroGap runs the bounded macro gap search for gap k.
func (r *relocation) macroGap(ctx context.Context, k pairKey) (*sdk.PlanResult, error) {
	p, run := r.p, r.p.run
	r.macTried[k] = true
	p.gaps++
	t0, n0 := time.Now(), run.Nodes
	f, rid, full, stop := r.gs.run(run, k.f, p.rev, k.r, gapExpansions, r.share)
	p.logf("macro gap f%d to r%d (%d off goals, estimate %d): took %v, %d expansions, met %v", k.f, k.r, p.rev.off[k.r], r.ra.est[k.r], time.Since(t0).Round(time.Millisecond), run.Nodes-n0, f >= 0)
	if stop != "" {
		return p.gaveUp(stop), nil
	}
	if full {
		return p.gaveUp("memory budget spent"), nil
	}
	if f >= 0 {
		p.gapsReached++
		return p.meet(ctx, f, rid)
	}
	return nil, nil
}

// spreadCandidates lists the positions of an RPR variation worth a gap:
// those with one region of free squares, the most spread first, and
// Holland's success position.
func (p *plan) spreadCandidates(res rprResult) []int32 {
	var out []int32
	for k := len(res.nodes) - 1; k >= 1; k-- {
		id := res.nodes[k]
		if p.rev.regionsOf(id) == 1 {
			out = append(out, id)
			break
		}
	}
	if res.first > 0 && (len(out) == 0 || out[0] != res.nodes[res.first]) {
		out = append(out, res.nodes[res.first])
	}
	return out
}

// meetReverse checks whether the start is a reverse position already.
func (p *plan) meetReverse(ctx context.Context) (*sdk.PlanResult, error) {
	if rid := p.rev.store.Find(p.fwd.store.Hash(p.fwd.root)); rid >= 0 {
		return p.meet(ctx, p.fwd.root, rid)
	}
	return nil, nil
}

// forwardPicks returns the forward positions to relocate from: the first
// ones with one region that pass the deadlock tests, or the start.
func (p *plan) forwardPicks() []int32 {
	var out []int32
	pos := macro.NewPos(p.b)
	for _, id := range p.fwd.open {
		if len(out) == picksWanted {
			break
		}
		p.fwd.store.Load(id, pos)
		if id == p.fwd.root || !p.fwd.deadlocked(pos) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		// No position with one region: the one with fewest regions
		// that passes the deadlock tests, fewest moves first.
		best := p.fwd.root
		for id := range int32(p.fwd.store.Len()) {
			if p.fwd.regions[id] > p.fwd.regions[best] || p.fwd.regions[id] == p.fwd.regions[best] && p.fwd.depth[id] >= p.fwd.depth[best] {
				continue
			}
			if p.fwd.store.Load(id, pos); !p.fwd.deadlocked(pos) {
				best = id
			}
		}
		out = append(out, best)
	}
	return out
}

// pairs returns the gaps between the forward and reverse nodes whose boxes
// can be matched at all, ordered by the estimated pushes between them.
func (p *plan) pairs(fwd, rev []int32) []pairKey {
	type scored struct {
		k pairKey
		d int
	}
	var out []scored
	for _, f := range fwd {
		for _, r := range rev {
			if d, ok := p.st.gap(p.fwd.store.Boxes(f), p.rev.store.Boxes(r)); ok {
				out = append(out, scored{pairKey{f, r}, d})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return a.d - b.d })
	keys := make([]pairKey, len(out))
	for i, s := range out {
		keys[i] = s.k
	}
	return keys
}

// tryGap runs one sub-search for gap k with a share of time, and returns
// the verified solution when it closes.
func (p *plan) tryGap(ctx context.Context, k pairKey, share time.Duration) (*sdk.PlanResult, error) {
	budget := p.subBudget(share)
	if budget.Time < minGapTime && !p.deadline.IsZero() {
		return nil, nil
	}
	if p.req.Budget.Nodes > 0 && budget.Nodes == 0 {
		return nil, nil
	}
	fe, err := p.fwd.forwardTo(k.f)
	if err != nil {
		return nil, err
	}
	p.gaps++
	t0 := time.Now()
	gap, player, met, nodes, ok, err := p.closeGap(ctx, fe, k.r, budget)
	p.logf("gap f%d (depth %d) to r%d (%d off goals): budget %v, took %v, %d nodes, closed %v, error %v",
		k.f, p.fwd.depth[k.f], k.r, p.rev.off[k.r], budget.Time, time.Since(t0).Round(time.Millisecond), nodes, ok, err)
	p.run.Nodes += nodes / subNodesPerTick
	if err != nil {
		if ctx.Err() == nil {
			// The host could not run this sub-search; the report says
			// why.
			p.subErr = err.Error()
		}
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	p.gapsReached++
	lurd, err := p.solution(fe.moves, gap, met, player)
	if err != nil {
		return nil, err
	}
	return macro.Verified(ctx, p.host, lurd)
}

// The sub-search's memory: what the engine fills in a second, and a floor.
const (
	subBytesPerSecond = 48 << 20
	minSubMemory      = 8 << 20
)

// subBudget is a sub-search's budget: the share of time, bounded by the
// time left, and the node budget left in sub-search units.
func (p *plan) subBudget(share time.Duration) sdk.Budget {
	bud := sdk.Budget{Time: min(share, p.remaining())}
	if n := p.req.Budget.Nodes; n > 0 {
		if p.run.Nodes < n {
			bud.Nodes = (n - p.run.Nodes) * subNodesPerTick
		}
	}
	// The engine sizes its table from the memory budget and clears it,
	// so a short sub-search gets a small one: about what it can fill.
	mem := uint64(bud.Time.Seconds() * subBytesPerSecond)
	mem = max(mem, minSubMemory)
	if m := p.req.Budget.MemoryBytes; m > 0 {
		mem = min(mem, m/4)
	}
	bud.MemoryBytes = mem
	return bud
}
