package engine

import (
	"path/filepath"
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
