package fess

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// analyse returns l's level as fess sees it.
func analyse(t *testing.T, l *sokoban.Level) (*level, *board.Board) {
	t.Helper()
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := newLevel(context.Background(), sdk.LevelFromBoard(b), 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	return lv, b
}

// TestDistances holds the box graph's distances to the host board's: a
// lone box's pushes from a square to a goal, the player on any side.
func TestDistances(t *testing.T) {
	for _, name := range plannertest.Fixtures(t) {
		t.Run(name, func(t *testing.T) {
			lv, b := analyse(t, plannertest.Fixture(t, name))
			var diffs []string
			for _, c := range lv.cell {
				sq := lv.square[c]
				for gi, goal := range b.Goals {
					want := b.Dist[int(sq)*len(b.Goals)+gi]
					gc := -1
					for _, x := range lv.cell {
						if lv.square[x] == int32(goal) {
							gc = int(x)
						}
					}
					if got := uint16(lv.distance(int(c), gc)); got != want {
						diffs = append(diffs, fmt.Sprintf("square %d to goal %d: %d, want %d", sq, goal, got, want))
					}
				}
			}
			if diff := cmp.Diff([]string(nil), diffs); diff != "" {
				t.Errorf("distances (-want +got):\n%s", diff)
			}
		})
	}
}

// replay plays a parking plan on the start's boxes: a step from a cell
// finds its box there, a first step (the boxes the base search left) or
// a step from a base takes a start box not used yet, no step puts a box
// where one stands, and at the end the boxes stand on the targets.
func replay(lv *level, p *plan) error {
	held := map[int32]bool{}
	var spare []int32
	for _, c := range lv.cell {
		if lv.start[c]&box != 0 {
			spare = append(spare, c)
		}
	}
	for k, s := range p.steps {
		switch s.from {
		case fromStart, fromBase:
			if len(spare) == 0 {
				return fmt.Errorf("step %d: no start box left", k)
			}
			spare = spare[1:]
		default:
			if !held[s.from] {
				return fmt.Errorf("step %d moves a box on from %d, where none stands", k, s.from)
			}
			delete(held, s.from)
		}
		if held[s.to] {
			return fmt.Errorf("step %d puts a box on %d, where one stands", k, s.to)
		}
		held[s.to] = true
	}
	for _, c := range lv.cell {
		if held[c] != (lv.start[c]&target != 0) {
			return fmt.Errorf("after the plan, cell %d holds a box: %v; is a target: %v", c, held[c], lv.start[c]&target != 0)
		}
	}
	return nil
}

// TestPlansReplay checks the base search's plan of the fixtures and of the
// corpus levels where it takes boxes off (those need SOKOD_LEVELS).
func TestPlansReplay(t *testing.T) {
	type tc struct {
		name string
		l    func(t *testing.T) *sokoban.Level
	}
	var cases []tc
	for _, name := range plannertest.Fixtures(t) {
		if name == plannertest.Unsolvable {
			continue
		}
		cases = append(cases, tc{name, func(t *testing.T) *sokoban.Level { return plannertest.Fixture(t, name) }})
	}
	for _, lvl := range []int{10, 39, 50, 69} {
		cases = append(cases, tc{fmt.Sprintf("xsokoban90.xsb/%d", lvl), func(t *testing.T) *sokoban.Level {
			return plannertest.Corpus(t, "xsokoban90.xsb").Levels[lvl-1]
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lv, _ := analyse(t, c.l(t))
			req := &sdk.PlanRequest{Budget: sdk.Budget{Time: time.Minute}}
			run := macro.NewRun(context.Background(), req, nil)
			res := backward(lv, newSearch(lv, modeBase, nil, nil, nil, nil, run, nil, 1<<20))
			if res.plan == nil {
				t.Fatalf("no plan: %s", res.why)
			}
			if err := replay(lv, res.plan); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestXSokoban69Plan holds the base search to the parking plan Festival
// 3.1 prints for XSokoban 69 (its verbose output, strategy A): row,
// column and source of every step, and until. Needs SOKOD_LEVELS.
func TestXSokoban69Plan(t *testing.T) {
	lv, _ := analyse(t, plannertest.Corpus(t, "xsokoban90.xsb").Levels[69-1])
	run := macro.NewRun(context.Background(), &sdk.PlanRequest{Budget: sdk.Budget{Time: time.Minute}}, nil)
	res := backward(lv, newSearch(lv, modeBase, nil, nil, nil, nil, run, nil, 1<<20))
	if res.plan == nil {
		t.Fatalf("no plan: %s", res.why)
	}
	var got []string
	for _, s := range res.plan.steps {
		from := "-"
		if s.from >= 0 {
			from = fmt.Sprintf("%d %d", int(s.from)/lv.w-2, int(s.from)%lv.w-2)
		}
		got = append(got, fmt.Sprintf("%d %d from %s until %d", int(s.to)/lv.w-2, int(s.to)%lv.w-2, from, s.until))
	}
	want := []string{
		"5 14 from - until 31", "5 15 from - until 24", "3 16 from - until 23", "7 13 from - until 33",
		"9 13 from - until 34", "9 15 from - until 32", "9 17 from - until 29", "5 16 from - until 26",
		"6 13 from - until 30", "5 17 from - until 28", "4 17 from - until 27", "3 17 from - until 25",
		"2 16 from - until 22", "2 12 from - until 21", "2 11 from - until 20", "4 11 from - until 17",
		"6 8 from - until -1", "4 10 from 4 11 until 19", "5 8 from - until -1", "6 10 from 4 10 until -1",
		"6 9 from 2 11 until -1", "5 9 from 2 12 until -1", "5 10 from 2 16 until -1", "4 9 from 3 16 until -1",
		"4 10 from 5 15 until -1", "4 12 from 3 17 until -1", "3 10 from 5 16 until -1", "3 12 from 4 17 until -1",
		"3 13 from 5 17 until -1", "5 11 from 9 17 until -1", "4 11 from 6 13 until -1", "3 11 from 5 14 until -1",
		"2 11 from 9 15 until -1", "2 12 from 7 13 until -1", "2 13 from 9 13 until -1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan (-Festival +fess):\n%s", diff)
	}
}

// TestPatterns checks the compiled pattern tables: every rotation and
// reflection, each once.
func TestPatterns(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []pattern
		text []string
	}{
		{"push", pushPatterns, pushPatternText},
		{"pull", pullPatterns, pullPatternText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[pattern]bool{}
			for _, p := range tc.got {
				if seen[p] {
					t.Errorf("pattern %+v twice", p)
				}
				seen[p] = true
			}
			// Each text pattern, as written, is in the table.
			for _, text := range tc.text {
				one := compilePatterns([]string{text})
				if !seen[one[0]] {
					t.Errorf("%q missing", text)
				}
				if len(one) < 1 || len(one) > 8 {
					t.Errorf("%q: %d orientations", text, len(one))
				}
			}
		})
	}
}

// zonesOracle labels, with a box on cell c, the cells reachable from each
// neighbour of c: zone k for the first neighbour k that reaches them
// (Festival's mark_connectivities_around_place, a flood per neighbour).
func zonesOracle(lv *level, g grid, c int) map[int]int {
	zones := map[int]int{}
	for k, d := range lv.d4 {
		s := c + d
		if _, ok := zones[s]; ok || !lv.inner[s] || g[s]&occupied != 0 {
			continue
		}
		zones[s] = k
		stack := []int{s}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range lv.d4 {
				y := x + e
				if _, ok := zones[y]; !ok && y != c && g[y]&occupied == 0 {
					zones[y] = k
					stack = append(stack, y)
				}
			}
		}
	}
	return zones
}

// TestSideLabels holds the linear side labels to a flood per square on
// the fixtures, with walls added at random to make cut squares.
func TestSideLabels(t *testing.T) {
	for _, name := range plannertest.Fixtures(t) {
		t.Run(name, func(t *testing.T) {
			lv, _ := analyse(t, plannertest.Fixture(t, name))
			for trial := range 20 {
				g := lv.empty()
				for i, c := range lv.cell {
					if (i*7+trial*13)%(trial+3) == 0 {
						g[c] = wall
					}
				}
				lab := lv.sideLabels(g, nil)
				for i, c := range lv.cell {
					if g[c]&occupied != 0 {
						continue
					}
					z := zonesOracle(lv, g, int(c))
					for a := range 4 {
						for b := range 4 {
							na, nb := int(c)+lv.d4[a], int(c)+lv.d4[b]
							za, oka := z[na]
							zb, okb := z[nb]
							want := oka && okb && za == zb
							got := lab[i*4+a] != noSide && lab[i*4+a] == lab[i*4+b]
							if got != want {
								t.Fatalf("trial %d, cell %d, sides %d %d: connected %v, want %v", trial, c, a, b, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// TestPatternMatch holds patternNear, which tries a pattern only where the
// box may stand in it, to a scan of every origin whose window covers the
// box, on boards of random boxes and player reach.
func TestPatternMatch(t *testing.T) {
	naive := func(lv *level, g grid, p *pattern, by, bx int) bool {
		for y := max(by-p.h+1, 0); y <= by; y++ {
		origin:
			for x := max(bx-p.w+1, 0); x <= bx; x++ {
				for i := range p.h {
					for j := range p.w {
						if p.any[i][j] {
							continue
						}
						if y+i >= lv.h || x+j >= lv.w || g[(y+i)*lv.w+x+j] != p.cell[i][j] {
							continue origin
						}
					}
				}
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	matches := 0
	for _, name := range plannertest.Fixtures(t) {
		lv, _ := analyse(t, plannertest.Fixture(t, name))
		for range 200 {
			g := lv.empty()
			var free []int32
			for _, c := range lv.cell {
				if rng.IntN(3) == 0 {
					g[c] |= box
				} else {
					free = append(free, c)
				}
			}
			if len(free) == 0 {
				continue
			}
			p := free[rng.IntN(len(free))]
			g[p] |= player
			lv.flood(g, []int32{p})
			for _, c := range lv.cell {
				if g[c]&box == 0 {
					continue
				}
				by, bx := int(c)/lv.w, int(c)%lv.w
				for _, ps := range [][]pattern{pushPatterns, pullPatterns} {
					for i := range ps {
						got, want := lv.patternNear(g, &ps[i], by, bx), naive(lv, g, &ps[i], by, bx)
						if got != want {
							t.Fatalf("%s: pattern %d at cell %d: %v, want %v", name, i, c, got, want)
						}
						if want {
							matches++
						}
					}
				}
			}
		}
	}
	if matches == 0 {
		t.Fatal("no board matched a pattern: the test compares nothing")
	}
	t.Logf("%d matches", matches)
}

// TestCycleDeadlock holds cycleDeadlock to Festival's sweep of the whole
// tree on random graphs of expansions (children may be expansions
// anywhere, so cycles abound): the best dies exactly when the sweep finds
// that it reaches no child still to expand; nothing else dies that the
// sweep keeps alive; and a best that lives has leaves to such a child.
func TestCycleDeadlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var died, lived int
	for range 2000 {
		nExp, nLeaf := 2+rng.IntN(30), rng.IntN(4)
		tr := &tree{}
		for i := range nExp + nLeaf {
			exp := int32(-1)
			if i < nExp {
				exp = int32(i)
			}
			tr.nodes = append(tr.nodes, node{exp: exp, dead: rng.IntN(12) == 0})
		}
		for i := range nExp {
			x := expansion{node: int32(i), kids: int32(len(tr.kids)), leaf: -1}
			for range rng.IntN(4) {
				// A child is marked dead only after its node, and lazily.
				id := int32(rng.IntN(len(tr.nodes)))
				tr.kids = append(tr.kids, child{node: id, dead: tr.nodes[id].dead && rng.IntN(2) == 0})
				x.nkids++
			}
			tr.exps = append(tr.exps, x)
		}
		// Some stale leaves, as earlier searches leave them.
		for i := range tr.exps {
			if n := tr.exps[i].nkids; n > 0 && rng.IntN(2) == 0 {
				tr.exps[i].leaf = int32(rng.IntN(int(n)))
			}
		}
		// Festival's sweep, to a fixpoint, on its own copy.
		reach := make([]bool, nExp)
		for changed := true; changed; {
			changed = false
			for i := range tr.exps {
				if reach[i] || tr.nodes[i].dead {
					continue
				}
				for _, k := range tr.children(int32(i)) {
					n := tr.nodes[k.node]
					if k.dead || n.dead {
						continue
					}
					if n.exp < 0 || reach[n.exp] {
						reach[i], changed = true, true
						break
					}
				}
			}
		}
		wasDead := make([]bool, len(tr.nodes))
		for i := range tr.nodes {
			wasDead[i] = tr.nodes[i].dead
		}
		best := int32(rng.IntN(nExp))
		tr.cycleDeadlock(best)
		for i := range nExp {
			if tr.nodes[i].dead && !wasDead[i] && reach[i] {
				t.Fatalf("expansion %d died, but the sweep finds it reaches a leaf", i)
			}
		}
		if wasDead[best] {
			continue
		}
		if got, want := tr.nodes[best].dead, !reach[best]; got != want {
			t.Fatalf("best %d dead %v, the sweep says %v", best, got, want)
		}
		if tr.nodes[best].dead {
			died++
			continue
		}
		lived++
		e := best
		for steps := 0; ; steps++ {
			if steps > nExp {
				t.Fatalf("the leaves from %d go round in a cycle", best)
			}
			x := tr.exps[e]
			if x.leaf < 0 {
				t.Fatalf("expansion %d on the leaves from %d has none", e, best)
			}
			k := tr.children(e)[x.leaf]
			if n := tr.nodes[k.node]; k.dead || n.dead {
				t.Fatalf("the leaf of %d is dead", e)
			} else if n.exp < 0 {
				break
			} else {
				e = n.exp
			}
		}
	}
	if died == 0 || lived == 0 {
		t.Fatalf("%d bests died and %d lived: the graphs test only one side", died, lived)
	}
}

// TestSpreadScores holds strategy D's backward search (modeSpread) to
// E's (modeBicon) on random box placements of the fixtures: the same
// score but for the feature of free squares on cycles, which E's scores
// must show somewhere for the comparison to mean anything.
func TestSpreadScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cycles := 0
	for _, name := range plannertest.Fixtures(t) {
		if name == plannertest.Unsolvable {
			continue
		}
		lv, _ := analyse(t, plannertest.Fixture(t, name))
		spread, bicon := newScorer(lv, modeSpread, nil, nil, nil), newScorer(lv, modeBicon, nil, nil, nil)
		g := make(grid, len(lv.start))
		for range 200 {
			copy(g, lv.start)
			for _, c := range lv.cell {
				g[c] &^= box | player
			}
			for _, i := range rng.Perm(len(lv.cell))[:lv.boxes] {
				g[lv.cell[i]] |= box
			}
			want := bicon.score(g)
			if want.biconnect != 0 {
				cycles++
			}
			want.biconnect = 0
			if diff := cmp.Diff(want, spread.score(g), cmp.AllowUnexported(score{})); diff != "" {
				t.Fatalf("%s: modeSpread's score (-modeBicon's without cycles +got):\n%s", name, diff)
			}
		}
	}
	if cycles == 0 {
		t.Error("no placement had a cycle feature: the test compares nothing")
	}
}
