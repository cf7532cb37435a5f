package engine

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestLearnedSetMatches checks when a learned set prunes: its boxes all in
// place, the player outside its corral, and the last move onto one of its
// squares.
func TestLearnedSetMatches(t *testing.T) {
	l := parseLevel(t, `
#######
#.  $ #
#  $@ #
#.    #
#######`)
	b := mustAnalyze(t, l)
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	var ls learnedSets
	ls.init(b.Squares)
	k := []uint16{sq(2, 1), sq(2, 2)}
	c := []uint16{sq(1, 1)}
	ls.learn(k, c, 42)
	ls.learn(k, c, 42) // known already: kept once
	if ls.used != 1 {
		t.Fatalf("learned %d sets, want 1", ls.used)
	}
	tests := []struct {
		name   string
		boxes  []uint16
		to     uint16
		player uint16
		want   bool
	}{
		{"complete, player outside", []uint16{sq(2, 1), sq(2, 2)}, sq(2, 2), sq(3, 2), true},
		{"complete, other box too", []uint16{sq(2, 1), sq(2, 2), sq(4, 3)}, sq(2, 1), sq(5, 3), true},
		{"complete, player in the corral", []uint16{sq(2, 1), sq(2, 2)}, sq(2, 2), sq(1, 1), false},
		{"incomplete", []uint16{sq(2, 1), sq(3, 2)}, sq(2, 1), sq(4, 2), false},
		{"moved box off the set", []uint16{sq(2, 1), sq(2, 2), sq(4, 3)}, sq(4, 3), sq(4, 2), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			boxAt := make([]int16, b.Squares+1)
			for i := range boxAt {
				boxAt[i] = -1
			}
			for i, s := range tc.boxes {
				boxAt[s] = int16(i)
			}
			if got := ls.dead(boxAt, tc.to, tc.player); got != tc.want {
				t.Errorf("dead = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLearnedDeadlocksIndependently checks the sets the search learns on
// XSokoban 1-8 by an independent plain search of each set's boxes alone
// on the board: with the player in every region outside the set's corral,
// they must not reach goals. That is the claim learning rests on, for every
// player square a later position may have, not only the one it was found
// with.
func TestLearnedDeadlocksIndependently(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	sets, checked := 0, 0
	for _, l := range levels[:8] {
		b := mustAnalyze(t, l)
		ls := &runSteps(b, 3000, 0, nil).learned
		for id := 0; id < ls.used && id < 10; id++ {
			k := ls.boxes(int32(id))
			var c []uint16
			for sq := range b.Squares {
				if ls.inCorral(int32(id), uint16(sq)) {
					c = append(c, uint16(sq))
				}
			}
			if len(k) > 4 {
				continue
			}
			sets++
			// One player square per region of the board with k's boxes
			// alone, outside c.
			covered := make([]bool, b.Squares+1)
			for _, x := range k {
				covered[x] = true
			}
			for _, x := range c {
				covered[x] = true
			}
			for p := 0; p < b.Squares; p++ {
				if covered[p] {
					continue
				}
				floodUnseen(b, uint16(p), covered, nil)
				switch plainBoxSearch(b, k, uint16(p), 50_000) {
				case 1:
					t.Fatalf("%s: learned boxes %v, corral %v: with the player on %d they reach goals",
						l.Title, squareNames(b, k), squareNames(b, c), p)
				case 0:
					checked++
				}
			}
		}
	}
	t.Logf("%d learned sets, %d player regions confirmed by exhaustion", sets, checked)
	if checked == 0 {
		t.Error("no learned set confirmed")
	}
}

// TestNoPushDeadlocksIndependently checks the sets learnNoPush keeps, on
// XSokoban 1-12 and on cluttered random levels, by plainBoxSearch of each
// set's boxes alone on the board: with the player in every region outside
// the set's corral, they must not reach goals. Sets of more than five boxes
// are beyond an exhaustive check and are only counted.
func TestNoPushDeadlocksIndependently(t *testing.T) {
	type claim struct{ k, c []uint16 }
	var boards []*Board
	for _, l := range loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[:12] {
		boards = append(boards, mustAnalyze(t, l))
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for range 200 {
		l, _ := parseRandom(rng, clutteredLevel)
		boards = append(boards, mustAnalyze(t, l))
	}
	claims, checked := 0, 0
	for _, b := range boards {
		var got []claim
		runSteps(b, 3000, TechClusterDeadlocks, func(s *searcher) {
			s.onNoPushDead = func(k, c []uint16) {
				claims++
				if len(got) < 10 && len(k) <= 5 {
					got = append(got, claim{slices.Clone(k), slices.Clone(c)})
				}
			}
		})
		for _, cl := range got {
			covered := make([]bool, b.Squares+1)
			for _, x := range cl.k {
				covered[x] = true
			}
			for _, x := range cl.c {
				covered[x] = true
			}
			for p := 0; p < b.Squares; p++ {
				if covered[p] {
					continue
				}
				floodUnseen(b, uint16(p), covered, nil)
				switch plainBoxSearch(b, cl.k, uint16(p), 100_000) {
				case 1:
					t.Fatalf("boxes %v, corral %v: with the player on %d they reach goals",
						squareNames(b, cl.k), squareNames(b, cl.c), p)
				case 0:
					checked++
				}
			}
		}
	}
	t.Logf("%d sets kept, %d player regions confirmed by exhaustion", claims, checked)
	if checked == 0 {
		t.Error("no set confirmed")
	}
}
