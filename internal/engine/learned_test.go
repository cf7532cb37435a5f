package engine

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestPathDeadlocksMatchReplay checks the marks goTo leaves on the path
// against a plain replay, in which every position on the path, rebuilt by
// taking the path's pushes back one by one from its end, is tested against
// every set learned so far. goTo marks where a set becomes complete, the
// replay every position it holds in, so what is compared is, for each
// position, whether one at or before it on the path is marked: whether the
// path is dead from there on. The search runs on XSokoban 1-8; every
// step is compared, after the sets its expansion learned are tested on the
// path as it stands, and every few steps the search goes back to a record
// it expanded earlier.
func TestPathDeadlocksMatchReplay(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	compared, marked := 0, 0
	for _, l := range levels[:8] {
		b := mustAnalyze(t, l)
		opts := Options{Objective: ObjectiveAny}
		s := newSearcher(b, testHeuristic(b, RuleMatching), opts, NewWorkspace(64<<20))
		if _, _, _, end := s.begin(); end {
			continue
		}
		rng := rand.New(rand.NewPCG(7, uint64(len(l.Title))))
		var earlier []uint32
		for i := 0; i < 3000; i++ {
			if _, _, _, end := s.step(); end {
				break
			}
			// The expansion may have learned sets; going to the same
			// record again tests only them, on the path as it stands.
			at := s.pathRec[len(s.pathRec)-1]
			earlier = append(earlier, at)
			if i%50 == 49 {
				at = earlier[rng.IntN(len(earlier))]
			}
			s.goTo(at)
			want, got := deadFrom(replayPathDeadlocks(s)), deadFrom(s.pathDead.dead)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s, step %d: path marks (-replay +goTo):\n%s", l.Title, i, diff)
			}
			if n := countTrue(s.pathDead.dead); n != s.pathDead.count {
				t.Fatalf("%s, step %d: count %d, %d marks", l.Title, i, s.pathDead.count, n)
			}
			compared++
			marked += countTrue(got)
		}
		s.finish()
	}
	t.Logf("%d paths compared, %d positions on them dead", compared, marked)
	if marked == 0 {
		t.Error("no path held a learned deadlock: the test checked nothing dead")
	}
}

// replayPathDeadlocks returns, for each position on s's path, whether one
// of s's learned sets holds in it, by testing every set on a copy of the
// board taken back push by push.
func replayPathDeadlocks(s *searcher) []bool {
	boxAt := slices.Clone(s.boxAt)
	dead := make([]bool, len(s.pathPush))
	for j := len(s.pathPush) - 1; j > 0; j-- {
		p := s.pathPush[j]
		last, end := s.span(p)
		for id := range s.learned.used {
			if s.learned.match(int32(id), boxAt, last) {
				dead[j] = true
			}
		}
		boxAt[p.from], boxAt[end] = boxAt[end], -1
	}
	return dead
}

// deadFrom returns, for each index of marks, whether it or one before it
// is marked.
func deadFrom(marks []bool) []bool {
	out := make([]bool, len(marks))
	for j, m := range marks {
		out[j] = m || j > 0 && out[j-1]
	}
	return out
}

func countTrue(v []bool) int {
	n := 0
	for _, x := range v {
		if x {
			n++
		}
	}
	return n
}
