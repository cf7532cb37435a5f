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
	// fit before the aims (XSokoban 90 was solved with a 16 s budget and
	// not with 59 s).
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

// solve runs the phases of the plan.
func (p *plan) solve(ctx context.Context) (*sdk.PlanResult, error) {
	b, run := p.b, p.run
	if macro.OnGoals(b, b.StartBoxes) == len(b.Goals) {
		return macro.Verified(ctx, p.host, "")
	}
	run.Best = macro.OnGoals(b, b.StartBoxes)

	// Reverse spread: RFS, RPR and RSB from each solved position.
	roots := p.rev.roots()
	if len(roots) == 0 {
		// Sound but not a proof the host would take from a planner.
		return p.gaveUp("by the one-box-maze restrictions no solved position can be reached from the start"), nil
	}
	var spread []int32
	for _, r := range roots {
		if stop, reason := run.Tick(); stop {
			return p.gaveUp(reason), nil
		}
		res := p.rev.rpr(r, run.Expired)
		spread = append(spread, p.spreadCandidates(res)...)
		last := res.nodes[len(res.nodes)-1]
		p.logf("rpr root %d: %d positions, first success %d, %d stuck, last off goals %d regions %d",
			r, len(res.nodes), res.first, res.stuck, p.rev.off[last], p.rev.regionsOf(last))
	}
	if res, err := p.meetReverse(ctx); res != nil || err != nil {
		return res, err
	}
	run.Message = fmt.Sprintf("reverse spread: %d solved positions, %d spread positions", len(roots), len(spread))

	// Forward opening.
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
	picks := p.forwardPicks()

	// Relocation, direct: the opened forward positions to the spread ones.
	share := min(time.Duration(float64(p.remaining())*gapShare), maxFirstGap)
	if p.deadline.IsZero() {
		share = noDeadlineGap
	}
	maxGap := time.Duration(float64(p.remaining()) * maxShare)
	tried := map[pairKey]bool{}
	// The solved position first, with twice a gap's share: the host's
	// plain search from the opened position, which the exhaustive search
	// from the start did not have (Sasquatch I 6 is solved this way, and
	// was solved only once the gaps' share had grown, after six seconds).
	rootShare := 2 * share
	if res, err := p.tryGap(ctx, pairKey{picks[0], roots[0]}, rootShare); res != nil || err != nil {
		return res, err
	}
	direct := p.pairs(picks, spread)
	for _, pk := range direct[:min(directPairs, len(direct))] {
		if stop, reason := run.Tick(); stop {
			return p.gaveUp(reason), nil
		}
		tried[pk] = true
		if res, err := p.tryGap(ctx, pk, share); res != nil || err != nil {
			return res, err
		}
	}

	// Relocation with box aims, both ways: the reverse search moves
	// towards the first forward pick, the forward search towards the most
	// spread reverse position, and the positions of either closest to its
	// aim become gaps. Each of the three gets the same share of the time.
	fid := picks[0]
	pos := macro.NewPos(b)
	p.fwd.store.Load(fid, pos)
	ra := newAimSearch(p.rev, newAim(p.st, fid, pos))
	ra.seed(run.Expired)
	p.ra = ra
	var fa *fwdAim
	spreadAim := int32(-1)
	if len(spread) > 0 {
		spreadAim = spread[0]
		p.rev.store.Load(spreadAim, pos)
		fa = newFwdAim(p.fwd, newAimAt(p.st, spreadAim, pos))
		fa.seed(run.Expired)
	}
	var times [3]time.Duration // reverse, forward, gaps
	revSpent, fwdSpent := false, fa == nil
	turn := 0 // alternates the gaps' sources
	macTried := map[pairKey]bool{}
	gs := newGapSearch(p.fwd)
	failed := 0
	for {
		act := 2
		if !revSpent && times[0] <= times[2] && (fwdSpent || times[0] <= times[1]) {
			act = 0
		} else if !fwdSpent && times[1] <= times[2] {
			act = 1
		}
		t0 := time.Now()
		switch act {
		case 0, 1:
			for range aimSlice {
				if stop, reason := run.Tick(); stop {
					return p.gaveUp(reason), nil
				}
				var f, r int32
				var sp bool
				if act == 0 {
					r, f, sp = ra.expand(run, p.fwd.store)
				} else {
					f, r, sp = fa.expand(run, p.rev.store)
				}
				if r >= 0 {
					if res, err := p.meet(ctx, f, r); res != nil || err != nil {
						return res, err
					}
				}
				if sp {
					revSpent = revSpent || act == 0
					fwdSpent = fwdSpent || act == 1
					break
				}
			}
		default:
			if share > rootShare {
				// Each time the gaps' share grows: the solved position
				// itself, the host's plain search from the opened
				// position, which sometimes needs only more time. One
				// search serves every root: its targets are the goals
				// whichever region the root's player is in, and
				// closeGap takes any solved end.
				rootShare = share
				if stop, reason := run.Tick(); stop {
					return p.gaveUp(reason), nil
				}
				if res, err := p.tryGap(ctx, pairKey{fid, roots[0]}, share); res != nil || err != nil {
					return res, err
				}
				break
			}
			// The gaps' sources in turn: the macro gap search to the
			// reverse position closest to the aim, the host's sub-search
			// to the closest one with one region, and the sub-search from
			// the forward position closest to the spread one.
			var k pairKey
			src := -1
			for range 3 {
				turn = (turn + 1) % 3
				switch {
				case turn == 0:
					for r := ra.nextMacro(); r >= 0; r = ra.nextMacro() {
						if k = (pairKey{fid, r}); !macTried[k] {
							src = 0
							break
						}
					}
				case turn == 1:
					for r := ra.nextGap(); r >= 0; r = ra.nextGap() {
						if k = (pairKey{fid, r}); !tried[k] {
							src = 1
							break
						}
					}
				case fa != nil:
					for f := fa.nextGap(); f >= 0; f = fa.nextGap() {
						if k = (pairKey{f, spreadAim}); !tried[k] {
							src = 2
							break
						}
					}
				}
				if src >= 0 {
					break
				}
			}
			if src < 0 {
				if revSpent && fwdSpent {
					return p.gaveUp("search space exhausted"), nil
				}
				times[2] = max(times[0], times[1]) // nothing to close yet
				continue
			}
			if stop, reason := run.Tick(); stop {
				return p.gaveUp(reason), nil
			}
			if src == 0 {
				macTried[k] = true
				p.gaps++
				t0, n0 := time.Now(), run.Nodes
				f, r, full, stop := gs.run(run, k.f, p.rev, k.r, gapExpansions, share)
				p.logf("macro gap f%d to r%d (%d off goals, estimate %d): took %v, %d expansions, met %v", k.f, k.r, p.rev.off[k.r], ra.est[k.r], time.Since(t0).Round(time.Millisecond), run.Nodes-n0, f >= 0)
				if stop != "" {
					return p.gaveUp(stop), nil
				}
				if full {
					return p.gaveUp("memory budget spent"), nil
				}
				if f >= 0 {
					p.gapsReached++
					if res, err := p.meet(ctx, f, r); res != nil || err != nil {
						return res, err
					}
				}
			} else {
				tried[k] = true
				res, err := p.tryGap(ctx, k, share)
				if res != nil || err != nil {
					return res, err
				}
			}
			if failed++; failed%escalateAfter == 0 {
				share = min(2*share, max(maxGap, share))
			}
		}
		times[act] += time.Since(t0)
		fbest := -1
		if fa != nil {
			fbest = fa.best
		}
		run.Message = fmt.Sprintf("relocating: %d reverse and %d forward positions, closest %d and %d pushes, %d of %d gaps closed",
			p.rev.store.Len(), p.fwd.store.Len(), ra.best, fbest, p.gapsReached, p.gaps)
	}
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
