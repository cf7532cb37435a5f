package relocation

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// level parses testdata/NAME of this package, or of plannertest (the
// fixtures every planner solves) when the name is one of those.
func level(t testing.TB, name string) *sokoban.Level {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if os.IsNotExist(err) {
		src, err = os.ReadFile(filepath.Join("..", "plannertest", "testdata", name))
	}
	if err != nil {
		t.Fatal(err)
	}
	l, err := sokoban.Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// testPlan analyses l and returns a plan over it with an in-process host.
func testPlan(t testing.TB, l *sokoban.Level, budget sdk.Budget) *plan {
	t.Helper()
	eb, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	req := &sdk.PlanRequest{Level: sdk.LevelFromBoard(eb), Budget: budget}
	b, err := macro.Board(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return newPlan(context.Background(), req, b, nil, nil)
}

// square returns the square at column x, row y (0-based).
func square(t *testing.T, b *board.Board, x, y int) uint16 {
	t.Helper()
	s := b.SquareOf[y*b.Width+x]
	if s < 0 {
		t.Fatalf("no square at %d,%d", x, y)
	}
	return uint16(s)
}

// applyPulls plays pulls on pos, checking each, and returns the player's
// square after the last.
func applyPulls(t *testing.T, b *board.Board, pos *macro.Pos, pulls []Pull) uint16 {
	t.Helper()
	var player uint16
	for k, pl := range pulls {
		a := b.Nbr[int(pl.From)*4+int(pl.Dir)]
		c := b.Nbr[int(a)*4+int(pl.Dir)]
		i := pos.BoxAt[pl.From]
		if i < 0 || pos.BoxAt[a] != -1 || pos.BoxAt[c] != -1 || c == uint16(b.Squares) {
			t.Fatalf("pull %d (%+v) is not legal", k, pl)
		}
		pos.BoxAt[pl.From] = -1
		pos.BoxAt[a] = i
		pos.Boxes[i] = a
		player = c
	}
	return player
}

// TestPullsReplayAsPushes checks every reverse macro move from the solved
// position of each level: its pulls are legal, end where the move says,
// and, played backwards as pushes, lead back to the solved position.
func TestPullsReplayAsPushes(t *testing.T) {
	for _, name := range []string{"goalroom.xsb", "rooms.xsb", "wide.xsb", "stack.xsb", "hall.xsb"} {
		t.Run(name, func(t *testing.T) {
			p := testPlan(t, level(t, name), sdk.Budget{})
			b := p.b
			roots := p.rev.roots()
			if len(roots) == 0 {
				t.Fatal("no solved position to start from")
			}
			moves := 0
			for _, r := range roots {
				pos := macro.NewPos(b)
				p.rev.store.Load(r, pos)
				for _, m := range slices.Clone(p.rev.pg.Generate(pos)) {
					moves++
					start := macro.NewPos(b)
					p.rev.store.Load(r, start)
					pulls, ok := p.rev.pg.pulls(start, int(m.Box), m.To, m.Norm)
					if !ok {
						t.Fatalf("move %+v: no pull path", m)
					}
					end := macro.NewPos(b)
					p.rev.store.Load(r, end)
					player := applyPulls(t, b, end, pulls)
					if end.Boxes[m.Box] != m.To {
						t.Fatalf("move %+v: box ends on %d", m, end.Boxes[m.Box])
					}
					if got := p.g.Flood(end, player); got != m.Norm {
						t.Fatalf("move %+v: player region's least square %d", m, got)
					}
					if h := macro.Hash(b, end.Boxes, m.Norm); h != m.Hash {
						t.Fatalf("move %+v: hash %x", m, h)
					}
					steps, _, err := pushesFrom(b, end, player, pulls)
					if err != nil {
						t.Fatalf("move %+v: %v", m, err)
					}
					// Replay the steps on the pulled position, apart from
					// pushesFrom's own bookkeeping.
					pulled := macro.NewPos(b)
					p.rev.store.Load(r, pulled)
					applyPulls(t, b, pulled, pulls)
					if _, err := replay(b, pulled, player, steps); err != nil {
						t.Fatalf("move %+v: pushes do not replay: %v", m, err)
					}
					if diff := cmp.Diff(sorted(b.Goals), sorted(pulled.Boxes)); diff != "" {
						t.Fatalf("move %+v: pushes end off the goals (-want +got):\n%s", m, diff)
					}
				}
			}
			if moves == 0 {
				t.Error("no reverse move at all")
			}
		})
	}
}

func sorted(s []uint16) []uint16 {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// TestRPRSpreads runs RPR on levels with a goal room: every box leaves
// its goal, the variation ends with one region, and the variation played
// forwards from its last position solves the level.
func TestRPRSpreads(t *testing.T) {
	tests := []struct {
		name     string
		stuckMax int
	}{
		{"goalroom.xsb", 0},
		{"stack.xsb", 1}, // RPR is greedy: one box finds no free square left
		{"hall.xsb", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlan(t, level(t, tt.name), sdk.Budget{})
			b := p.b
			// The solved position once per region the player may end in;
			// the best variation counts.
			var res rprResult
			var last int32
			for k, r := range p.rev.roots() {
				rr := p.rev.rpr(r, func() bool { return false })
				l := rr.nodes[len(rr.nodes)-1]
				if k == 0 || p.rev.off[l] > p.rev.off[last] {
					res, last = rr, l
				}
			}
			got := struct{ Stuck, Off, Regions int }{res.stuck, int(p.rev.off[last]), int(p.rev.regionsOf(last))}
			want := struct{ Stuck, Off, Regions int }{min(got.Stuck, tt.stuckMax), len(b.Goals) - got.Stuck, 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("RPR end (-want +got):\n%s", diff)
			}
			pos := macro.NewPos(b)
			p.rev.store.Load(last, pos)
			player := pos.Player
			steps, err := p.rev.finish(last, player)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := replay(b, pos, player, steps); err != nil {
				t.Fatalf("the stacking does not replay: %v", err)
			}
			if macro.OnGoals(b, pos.Boxes) != len(b.Goals) {
				t.Errorf("the stacking ends with %d of %d boxes on goals", macro.OnGoals(b, pos.Boxes), len(b.Goals))
			}
		})
	}
}

// TestFreeSpace checks RFS's choice on a goal room: squares of the
// player's region, never goals, no two that freeze a box or cut the
// region once all are filled, and the isolated ones first.
func TestFreeSpace(t *testing.T) {
	p := testPlan(t, level(t, "stack.xsb"), sdk.Budget{})
	b := p.b
	roots := p.rev.roots()
	pos := macro.NewPos(b)
	p.rev.store.Load(roots[0], pos)
	bl := p.rev.fs.compute(pos)
	if len(bl) < len(b.Goals) {
		t.Fatalf("%d free squares for %d boxes", len(bl), len(b.Goals))
	}
	p.g.Flood(pos, pos.Player)
	for _, s := range bl {
		if b.GoalIndex[s] >= 0 || !p.g.Reached(s) {
			t.Errorf("square %d: a goal or out of the player's region", s)
		}
	}
	if !slices.Equal(bl, slices.Compact(slices.Clone(bl))) {
		t.Error("a square chosen twice")
	}
	// With every chosen square filled, the free squares fall into no more
	// regions than before and no box is frozen off a goal.
	regions := p.g.Regions(pos)
	q := macro.NewPos(b)
	q.Set(append(slices.Clone(pos.Boxes), bl...), pos.Player)
	if r := p.g.Regions(q); r != regions {
		t.Errorf("%d regions with the free space filled, want %d", r, regions)
	}
	mark := make([]bool, b.Squares+1)
	for _, s := range bl {
		clear(mark)
		if frozenAt(b, q, s, mark, nil) {
			t.Errorf("the box on free square %d is frozen", s)
		}
	}
}

// TestFreeSpaceRepeats checks that RFS depends on its position only: the
// free space of each solved position is the same whether computed first,
// after the others, or twice (the trial position once kept the squares
// the previous call chose as boxes).
func TestFreeSpaceRepeats(t *testing.T) {
	for _, name := range []string{"stack.xsb", "hall.xsb", "goalroom.xsb", "wallgoal.xsb"} {
		t.Run(name, func(t *testing.T) {
			p := testPlan(t, level(t, name), sdk.Budget{})
			pos := macro.NewPos(p.b)
			var fresh, again [][]uint16
			roots := p.rev.roots()
			for _, r := range roots {
				p.rev.store.Load(r, pos)
				fs := newFreeSpace(p.b, p.g, p.rev.pg, p.st)
				fresh = append(fresh, slices.Clone(fs.compute(pos)))
			}
			for range 2 {
				again = again[:0]
				for _, r := range roots {
					p.rev.store.Load(r, pos)
					again = append(again, slices.Clone(p.rev.fs.compute(pos)))
				}
				if diff := cmp.Diff(fresh, again); diff != "" {
					t.Errorf("free space after other calls (-fresh +again):\n%s", diff)
				}
			}
		})
	}
}

// TestStranded checks the test that keeps reverse positions without any
// pull out of the gap queues: the player shut in next to the goal cannot
// pull, the solved position with the player behind the box can.
func TestStranded(t *testing.T) {
	l, err := sokoban.Parse("######\n#@$ .#\n######\n")
	if err != nil {
		t.Fatal(err)
	}
	p := testPlan(t, l, sdk.Budget{})
	b := p.b
	tests := []struct {
		name         string
		box, player  [2]int
		wantStranded bool
	}{
		{"shut in on the goal side", [2]int{3, 1}, [2]int{4, 1}, true},
		{"solved, player behind", [2]int{4, 1}, [2]int{2, 1}, false},
		{"box mid-way, player behind", [2]int{3, 1}, [2]int{1, 1}, false},
	}
	s := &aimSearch{r: p.rev}
	pos := macro.NewPos(b)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			box := square(t, b, tt.box[0], tt.box[1])
			pos.Set([]uint16{box}, square(t, b, tt.player[0], tt.player[1]))
			norm := p.g.Flood(pos, pos.Player)
			id := p.rev.store.Add(-1, nil, macro.Hash(b, pos.Boxes, norm), pos.Boxes, norm)
			if id < 0 {
				t.Fatal("store full")
			}
			if got := s.stranded(id); got != tt.wantStranded {
				t.Errorf("stranded = %v, want %v", got, tt.wantStranded)
			}
		})
	}
}

// TestGoalTrap checks the region restrictions on a goal on a wall: one box
// on the wall is fine, two are a deadlock.
func TestGoalTrap(t *testing.T) {
	p := testPlan(t, level(t, "wallgoal.xsb"), sdk.Budget{})
	b := p.b
	player := square(t, b, 3, 4)
	tests := []struct {
		name  string
		boxes [][2]int
		dead  bool
	}{
		{"start", [][2]int{{2, 3}, {3, 3}}, false},
		{"one on the wall", [][2]int{{2, 1}, {3, 3}}, false},
		{"two on the wall", [][2]int{{2, 1}, {4, 1}}, true},
		{"one on the wall's goal, one beside", [][2]int{{3, 1}, {4, 1}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := macro.NewPos(b)
			var boxes []uint16
			for _, xy := range tt.boxes {
				boxes = append(boxes, square(t, b, xy[0], xy[1]))
			}
			pos.Set(boxes, player)
			states := p.st.boxStates(pos, nil)
			if got := !p.st.fwd.ok(states); got != tt.dead {
				t.Errorf("deadlocked %v, want %v", got, tt.dead)
			}
		})
	}
}

// TestExclusionZone holds the push-reachable zone to a plain search of
// each start box's pushes on an otherwise empty board (a flood for the
// player per state, no region labels), and checks that no reverse move
// from a solved position leads a box out of the zone.
func TestExclusionZone(t *testing.T) {
	for _, name := range []string{"wallgoal.xsb", "stack.xsb", "rooms.xsb", "wide.xsb"} {
		t.Run(name, func(t *testing.T) {
			p := testPlan(t, level(t, name), sdk.Budget{})
			b := p.b
			want := make([]bool, b.Squares)
			for _, x := range b.StartBoxes {
				for s, ok := range lonePushes(b, x, b.StartPlayer) {
					want[s] = want[s] || ok
				}
			}
			got := make([]bool, b.Squares)
			for s := range b.Squares {
				for l := range labels {
					got[s] = got[s] || p.st.prz[s*labels+l]
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("push-reachable squares (-plain +zone):\n%s", diff)
			}
			for _, r := range p.rev.roots() {
				pos := macro.NewPos(b)
				p.rev.store.Load(r, pos)
				for _, m := range p.rev.pg.Generate(pos) {
					side := b.Nbr[int(m.To)*4+int(m.Side)]
					if !p.st.prz[p.st.state(m.To, side)] {
						t.Errorf("a pull to square %d, out of the zone", m.To)
					}
				}
			}
		})
	}
}

// lonePushes returns the squares a lone box on x reaches by pushes, the
// player starting on player: a breadth-first search over (box, player
// square) with a flood per state.
func lonePushes(b *board.Board, x, player uint16) []bool {
	wall := uint16(b.Squares)
	out := make([]bool, b.Squares)
	type st struct{ box, pl uint16 }
	seen := map[st]bool{}
	reach := func(box, from uint16) []bool {
		r := make([]bool, b.Squares+1)
		r[from] = true
		q := []uint16{from}
		for h := 0; h < len(q); h++ {
			for d := range 4 {
				n := b.Nbr[int(q[h])*4+d]
				if n != wall && n != box && !r[n] {
					r[n] = true
					q = append(q, n)
				}
			}
		}
		return r
	}
	queue := []st{{x, player}}
	seen[queue[0]] = true
	for h := 0; h < len(queue); h++ {
		c := queue[h]
		out[c.box] = true
		r := reach(c.box, c.pl)
		for d := range 4 {
			behind, to := b.Nbr[int(c.box)*4+d^2], b.Nbr[int(c.box)*4+d]
			if behind == wall || to == wall || !r[behind] {
				continue
			}
			n := st{to, c.box}
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return out
}

// TestEstimates checks that the estimates of a whole store, walked as a
// tree, are each node's estimate from scratch: for the reverse store
// against a forward aim and for the forward store against a reverse one.
func TestEstimates(t *testing.T) {
	for _, name := range []string{"stack.xsb", "hall.xsb", "goalroom.xsb", "column.xsb"} {
		t.Run(name, func(t *testing.T) {
			p := testPlan(t, level(t, name), sdk.Budget{})
			never := func() bool { return false }
			for _, r := range p.rev.roots() {
				p.rev.rpr(r, never)
			}
			run := macro.NewRun(context.Background(), &sdk.PlanRequest{}, nil)
			for range 300 {
				if _, _, spent := p.fwd.expand(run, p.rev.store); spent {
					break
				}
			}
			pos := macro.NewPos(p.b)
			p.fwd.store.Load(p.fwd.root, pos)
			toFwd := newAim(p.st, p.fwd.root, pos)
			// The reverse search towards the start grows the reverse
			// store past RPR's few positions.
			ra := newAimSearch(p.rev, newAim(p.st, p.fwd.root, pos))
			ra.seed(never)
			for range 300 {
				if _, _, spent := ra.expand(run, p.fwd.store); spent {
					break
				}
			}
			last := int32(p.rev.store.Len() - 1)
			p.rev.store.Load(last, pos)
			toRev := newAimAt(p.st, last, pos)
			for _, tc := range []struct {
				side  string
				a     *aim
				store *macro.Store
			}{{"reverse", toFwd, p.rev.store}, {"forward", toRev, p.fwd.store}} {
				if tc.store.Len() < 20 {
					t.Fatalf("%s store: %d nodes, too few to test", tc.side, tc.store.Len())
				}
				want := make([]int32, tc.store.Len())
				for id := range want {
					tc.store.Load(int32(id), pos)
					want[id] = int32(tc.a.estimate(pos.Boxes))
				}
				if diff := cmp.Diff(want, tc.a.estimates(tc.store, pos, never)); diff != "" {
					t.Errorf("%s store of %d nodes: estimates (-from scratch +walked):\n%s", tc.side, len(want), diff)
				}
				if testing.Verbose() {
					t.Logf("%s store: %d nodes", tc.side, len(want))
				}
			}
		})
	}
}

// TestNoAllocsPerNode checks that generating a position's reverse moves
// and estimating its children allocate nothing once warm.
func TestNoAllocsPerNode(t *testing.T) {
	p := testPlan(t, level(t, "stack.xsb"), sdk.Budget{})
	roots := p.rev.roots()
	pos := macro.NewPos(p.b)
	p.rev.store.Load(roots[0], pos)
	fpos := macro.NewPos(p.b)
	p.fwd.store.Load(p.fwd.root, fpos)
	a := newAim(p.st, p.fwd.root, fpos)
	run := func() {
		a.estimate(pos.Boxes)
		for _, m := range p.rev.pg.Generate(pos) {
			a.child(int(m.Box), m.From, m.To)
		}
	}
	run()
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Errorf("%v allocations per expansion, want 0", n)
	}
}

// BenchmarkAimExpand measures one expansion of the reverse relocation
// search: reverse moves of a position and the estimate of each child.
func BenchmarkAimExpand(b *testing.B) {
	p := testPlan(b, level(b, "stack.xsb"), sdk.Budget{})
	roots := p.rev.roots()
	res := p.rev.rpr(roots[0], func() bool { return false })
	pos := macro.NewPos(p.b)
	p.rev.store.Load(res.nodes[len(res.nodes)/2], pos)
	fpos := macro.NewPos(p.b)
	p.fwd.store.Load(p.fwd.root, fpos)
	a := newAim(p.st, p.fwd.root, fpos)
	b.ReportAllocs()
	for b.Loop() {
		a.estimate(pos.Boxes)
		for _, m := range p.rev.pg.Generate(pos) {
			a.child(int(m.Box), m.From, m.To)
		}
	}
}
