package fess

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk/macro"
)

// TestOOPZonesOracle holds the zones to their definition, computed another
// way: a square is out of plan after step k when no relaxed push sequence
// from it (a forward search per square, where newOOPZones pulls from the
// later steps' squares) reaches a later step's square, the squares of the
// steps up to k that stay filled walled up; and each step takes the zone of
// the first step after it where the zone changes.
func TestOOPZonesOracle(t *testing.T) {
	zones := 0
	for _, name := range []string{"corridor.xsb", "goalroom.xsb", "rooms.xsb", "wide.xsb", "frozen.xsb"} {
		b := fixtureBoard(t, name)
		plan := packing.Order(context.Background(), b)
		z := newOOPZones(b, plan)
		steps := len(plan.Steps)
		own := make([][]bool, steps)
		for k := 0; k+1 < steps; k++ {
			own[k] = plainZone(b, plan, k)
		}
		for k := 0; k <= steps; k++ {
			want := []bool(nil)
			if k+1 < steps {
				want = own[k]
				for c := k + 1; c+1 < steps; c++ {
					if !slices.Equal(own[c], own[c-1]) {
						want = own[c]
						break
					}
				}
			}
			if diff := cmp.Diff(want, z.zone[k]); diff != "" {
				t.Errorf("%s: zone after %d steps (-want +got):\n%s", name, k, diff)
			}
			if z.zone[k] != nil {
				zones++
				checkZoneDist(t, b, plan, k, z.zone[k], z.dist[k])
			}
		}
	}
	if zones == 0 {
		t.Fatal("no fixture has a square out of plan: the test checks nothing")
	}
}

// checkZoneDist holds dist to a breadth-first distance from zone: 0 on
// the zone alone, and every other finite distance one more than that of a
// square a relaxed push comes from, every push lengthening it by at most
// one; the boxes in place after k steps are walls.
func checkZoneDist(t *testing.T, b *board.Board, plan *packing.Plan, k int, zone []bool, dist []uint16) {
	t.Helper()
	wall := b.Wall()
	walled := make([]bool, b.Squares+1)
	for j, st := range plan.Steps[:k] {
		if plan.Until[j] < 0 || int(plan.Until[j]) >= k {
			walled[st.To] = true
		}
	}
	free := func(sq uint16) bool { return sq != wall && !walled[sq] }
	for sq := range uint16(b.Squares) {
		d := dist[sq]
		if (d == 0) != zone[sq] {
			t.Fatalf("after %d steps: square %d has distance %d, in the zone %v", k, sq, d, zone[sq])
		}
		if d == board.Inf || d == 0 {
			continue
		}
		from := false
		for dir := range 4 {
			s, p := b.Nbr[int(sq)*4+(dir^2)], b.Nbr[int(b.Nbr[int(sq)*4+(dir^2)])*4+(dir^2)]
			if free(s) && free(p) && dist[s] == d-1 {
				from = true
			}
			if t2 := b.Nbr[int(sq)*4+dir]; free(t2) && free(s) && dist[t2] > d+1 {
				t.Fatalf("after %d steps: a push from square %d (distance %d) reaches %d at distance %d", k, sq, d, t2, dist[t2])
			}
		}
		if !from {
			t.Fatalf("after %d steps: square %d at distance %d is reached from no square at %d", k, sq, d, d-1)
		}
	}
}

// plainZone is step k's own zone by a forward search from each square.
func plainZone(b *board.Board, plan *packing.Plan, k int) []bool {
	wall := b.Wall()
	walled := make([]bool, b.Squares+1)
	for j, st := range plan.Steps[:k+1] {
		if plan.Until[j] < 0 {
			walled[st.To] = true
		}
	}
	later := make([]bool, b.Squares+1)
	for _, st := range plan.Steps[k+1:] {
		later[st.To] = true
	}
	free := func(sq uint16) bool { return sq != wall && !walled[sq] }
	var zone []bool
	for sq := range uint16(b.Squares) {
		if walled[sq] || b.Dead[sq] {
			continue
		}
		seen := map[uint16]bool{sq: true}
		queue := []uint16{sq}
		reaches := false
		for i := 0; i < len(queue) && !reaches; i++ {
			s := queue[i]
			reaches = later[s]
			for d := range 4 {
				t, p := b.Nbr[int(s)*4+d], b.Nbr[int(s)*4+(d^2)]
				if free(t) && free(p) && !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
		if !reaches {
			if zone == nil {
				zone = make([]bool, b.Squares+1)
			}
			zone[sq] = true
		}
	}
	return zone
}

// TestClearOOP checks the out-of-plan advisor in an open room whose zone
// is its left column, the distance from it a box's column: it proposes the
// move starting nearest the zone, the farther of two from one square, and
// nothing for a move towards the zone, one that cannot be undone, one that
// costs a feature, or when no box is out of plan.
func TestClearOOP(t *testing.T) {
	b := analyze(t, `
#########
#  $ $  #
#  @    #
#     ..#
#########`)
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	plan := &packing.Plan{}
	zone := make([]bool, b.Squares+1)
	dist := make([]uint16, b.Squares+1)
	for s := range uint16(b.Squares) {
		x, _ := b.XY(s)
		zone[s] = x == 1
		dist[s] = uint16(x - 1)
	}
	parent := features{packed: 0, regions: 1, doors: 0, outOfPlan: 2}
	mv := func(fx, tx int) macro.Move { return macro.Move{From: sq(fx, 2), To: sq(tx, 2)} }
	for _, tc := range []struct {
		name     string
		parent   features
		moves    []macro.Move
		children []features
		want     int
	}{
		{"the move starting nearest", parent, []macro.Move{mv(3, 6), mv(2, 4)}, []features{parent, parent}, 1},
		{"the farther of two from one square", parent, []macro.Move{mv(2, 3), mv(2, 5)}, []features{parent, parent}, 1},
		{"none towards the zone", parent, []macro.Move{mv(4, 2)}, []features{parent}, -1},
		{"none that cannot be pushed back", parent, []macro.Move{mv(5, 7)}, []features{parent}, -1},
		{"none losing packing", features{packed: 1, regions: 1, outOfPlan: 2}, []macro.Move{mv(2, 4)}, []features{{regions: 1, outOfPlan: 2}}, -1},
		{"none adding a region", parent, []macro.Move{mv(2, 4)}, []features{{regions: 2, outOfPlan: 2}}, -1},
		{"none adding a door", parent, []macro.Move{mv(2, 4)}, []features{{regions: 1, doors: 1, outOfPlan: 2}}, -1},
		{"none adding a box out of plan", parent, []macro.Move{mv(2, 4)}, []features{{regions: 1, outOfPlan: 3}}, -1},
		{"none when no box is out of plan", features{regions: 1}, []macro.Move{mv(2, 4)}, []features{{regions: 1}}, -1},
	} {
		z := &oopZones{zone: [][]bool{zone, zone}, dist: [][]uint16{dist, dist}}
		s := &search{b: b, plan: plan, ways: newWays(b, plan), oop: z, childFeat: tc.children, known: make([]bool, len(tc.moves))}
		if diff := cmp.Diff(tc.want, s.clearOOP(tc.moves, tc.parent)); diff != "" {
			t.Errorf("%s: the advisor's move (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestOOPZonesLargePlan checks that a plan whose steps times the board's
// squares pass the bound gets no zones, and one within it does.
func TestOOPZonesLargePlan(t *testing.T) {
	b := loneBoxBoard(t, 20)
	g := b.Goals[0]
	plan := func(steps int) *packing.Plan {
		p := &packing.Plan{Steps: make([]packing.Step, steps)}
		for k := range p.Steps {
			p.Steps[k] = packing.Step{From: -1, To: g}
		}
		return p
	}
	within := maxHotspotWork / b.Squares
	if z := newOOPZones(b, plan(within+1)); z != nil {
		t.Errorf("%d steps on %d squares got zones", within+1, b.Squares)
	}
	if z := newOOPZones(b, plan(2)); z == nil {
		t.Errorf("2 steps on %d squares got no zones", b.Squares)
	}
}
