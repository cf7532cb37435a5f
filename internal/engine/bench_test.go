package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchSearcher returns a searcher on the benchmark level, advanced by
// warm expansions so that its buffers have reached their steady-state size.
func benchSearcher(tb testing.TB, rule Rule, obj Objective, warm int) *searcher {
	return benchSearcherWith(tb, rule, obj, warm, false)
}

// benchSearcherWith is benchSearcher, with deadlock tables when tables is
// set.
func benchSearcherWith(tb testing.TB, rule Rule, obj Objective, warm int, tables bool) *searcher {
	tb.Helper()
	return benchSearcherOpts(tb, "testdata/bench.xsb", rule, Options{Objective: obj}, warm, tables)
}

// benchSearcherOpts is benchSearcherWith with options, on the first level
// of file.
func benchSearcherOpts(tb testing.TB, file string, rule Rule, opts Options, warm int, tables bool) *searcher {
	tb.Helper()
	l := loadCollection(tb, file)[0]
	b := mustAnalyze(tb, l)
	if tables {
		opts.Deadlocks = []*Deadlocks{wallPairs(b, false)}
	}
	s := newSearcher(b, testHeuristic(b, rule), opts, NewWorkspace(512<<20))
	if _, _, _, end := s.begin(); end {
		tb.Fatal("benchmark level decided at the root")
	}
	for i := 0; i < warm; i++ {
		if st, reason, _, end := s.step(); end {
			tb.Fatalf("benchmark level ended during warm-up: %v %s", st, reason)
		}
	}
	return s
}

// TestExpandAllocs proves the steady state of the search loop (pop,
// rebuild, reachability, move generation, deadlock tests, bound, table
// insert, queue push, goal macros and home moves) allocates nothing. It
// runs on levels with twelve boxes, which none of these searches solves or
// exhausts within the steps it takes; the corral and frozen-goal deadlock
// tests run in all of them.
func TestExpandAllocs(t *testing.T) {
	tests := []struct {
		rule   Rule
		opts   Options
		warm   int
		tables bool // deadlock tables
		lazy   bool // child bounds deferred to the pop, as with many boxes
		macros bool // goal macros must fire during the measured steps
	}{
		{rule: RuleSumMin, opts: Options{Objective: ObjectivePushes}, warm: 20000},
		{rule: RuleGreedy, opts: Options{Objective: ObjectiveAny, Off: TechGoalMacros}, warm: 20000},
		{rule: RuleMatching, opts: Options{Objective: ObjectivePushes}, warm: 20000},
		{rule: RuleMatching, opts: Options{Objective: ObjectivePushes}, warm: 20000, lazy: true},
		{rule: RuleMatching, opts: Options{Objective: ObjectivePushes}, warm: 20000, tables: true},
		// Goal macros and home moves on (the level's goal rows are an
		// area); they solve bench12 in a few thousand expansions at most.
		{rule: RuleGreedy, opts: Options{Objective: ObjectiveAny, Strategy: StrategyGreedy}, warm: 20000, macros: true},
		{rule: RuleSumMin, opts: Options{Objective: ObjectiveAny, Strategy: StrategyGreedy}, warm: 20000, macros: true},
	}
	for _, tc := range tests {
		level := "testdata/bench12.xsb"
		if tc.macros {
			level = "testdata/stuck12.xsb"
		}
		s := benchSearcherOpts(t, level, tc.rule, tc.opts, tc.warm, tc.tables)
		s.lazy = tc.lazy
		searches := s.gm.vgen
		allocs := testing.AllocsPerRun(2000, func() {
			if st, reason, _, end := s.step(); end {
				t.Fatalf("search ended: %v %s", st, reason)
			}
		})
		name := fmt.Sprintf("%s/%v/tables %v/lazy %v/goal macros %v", tc.rule, tc.opts.Objective, tc.tables, tc.lazy, tc.opts.Off&TechGoalMacros == 0)
		if allocs != 0 {
			t.Errorf("%s: %v allocations per expanded node, want 0", name, allocs)
		}
		if tc.macros && s.gm.vgen == searches {
			t.Errorf("%s: no goal macro or home move searched for in the measured steps", name)
		}
	}
}

func BenchmarkReach(b *testing.B) {
	s := benchSearcher(b, RuleSumMin, ObjectivePushes, 0)
	b.ReportAllocs()
	for b.Loop() {
		s.reach(s.player)
	}
}

// BenchmarkMoveGen measures reachability plus collecting the legal pushes.
func BenchmarkMoveGen(b *testing.B) {
	s := benchSearcher(b, RuleSumMin, ObjectivePushes, 0)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s.reach(s.player)
		gen := s.gen
		s.moves = s.moves[:0]
		for _, bx := range s.boxes {
			if s.boxMark[bx] != gen {
				continue
			}
			for d := uint8(0); d < 4; d++ {
				to := s.nbr[int(bx)*4+int(d)]
				if s.boxAt[to] != -1 || s.b.Dead[to] || s.stamp[s.nbr[int(bx)*4+int(d^2)]] != gen {
					continue
				}
				s.moves = append(s.moves, push{from: bx, dir: d})
			}
		}
		n += len(s.moves)
	}
	if n == 0 {
		b.Fatal("no moves")
	}
}

// benchLowerBound measures the bound of a child position (one box moved),
// the per-child cost in the search.
func benchLowerBound(b *testing.B, rule Rule) {
	s := benchSearcher(b, rule, ObjectivePushes, 0)
	cur := s.ev.sync(s.boxes, s.player)
	// Every box, every free neighbour square.
	type mv struct {
		i  int
		to uint16
	}
	var mvs []mv
	for i, bx := range s.boxes {
		for d := 0; d < 4; d++ {
			if to := s.nbr[int(bx)*4+d]; s.boxAt[to] == -1 {
				mvs = append(mvs, mv{i, to})
			}
		}
	}
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		m := mvs[k%len(mvs)]
		k++
		s.ev.child(cur, m.i, m.to, s.boxes[m.i], 1, false)
	}
}

func BenchmarkLowerBoundSimple(b *testing.B)   { benchLowerBound(b, RuleSumMin) }
func BenchmarkLowerBoundGreedy(b *testing.B)   { benchLowerBound(b, RuleGreedy) }
func BenchmarkLowerBoundMatching(b *testing.B) { benchLowerBound(b, RuleMatching) }

// BenchmarkTableInsert measures find plus insert of new keys, the table
// refilled from empty whenever it reaches its load limit.
func BenchmarkTableInsert(b *testing.B) {
	t := newTable(1 << 22)
	defer t.release()
	x := uint64(12345)
	b.ReportAllocs()
	for b.Loop() {
		if t.full() {
			b.StopTimer()
			t.trim()
			b.StartTimer()
		}
		x += 0x9e3779b97f4a7c15
		z := (x ^ x>>31) * 0xbf58476d1ce4e5b9
		key := hashKey(z ^ z>>29)
		i, found := t.find(key)
		if !found {
			t.insert(i, key, 1, 2, 3, 1)
		}
	}
}

// BenchmarkExpand measures whole expansions (pop, rebuild, children) of an
// A* search with the matching bound, in steady state.
func BenchmarkExpand(b *testing.B) {
	for _, rule := range []Rule{RuleSumMin, RuleMatching} {
		b.Run(rule.String(), func(b *testing.B) {
			s := benchSearcher(b, rule, ObjectivePushes, 1000)
			b.ReportAllocs()
			for b.Loop() {
				if st, reason, _, end := s.step(); end {
					b.Fatalf("search ended: %v %s", st, reason)
				}
			}
		})
	}
}

// BenchmarkExpandManyBoxes measures expansions of objective any with the
// matching bound on the largest Sasquatch VII level (256 boxes), children
// repaired one by one ("repair") against deferred to their pop ("lazy",
// the default above lazyRepairBoxes). Needs SOKOD_LEVELS.
func BenchmarkExpandManyBoxes(b *testing.B) {
	ls := loadCollection(b, filepath.Join(levelsDir(b), "sasquatch7.xsb"))
	brd := mustAnalyze(b, ls[len(ls)-1])
	for _, v := range []struct {
		name   string
		repair int
	}{{"lazy", 0}, {"repair", 1 << 20}} {
		b.Run(v.name, func(b *testing.B) {
			s := newSearcher(brd, testHeuristic(brd, RuleMatching), Options{Objective: ObjectiveAny, repairBoxes: v.repair}, NewWorkspace(256<<20))
			if _, _, _, end := s.begin(); end {
				b.Fatal("decided at the root")
			}
			b.ReportAllocs()
			for b.Loop() {
				if st, reason, _, end := s.step(); end {
					b.Fatalf("search ended: %v %s", st, reason)
				}
			}
			b.ReportMetric(float64(s.nodes)/b.Elapsed().Seconds(), "expansions/s")
		})
	}
}

// BenchmarkFillPlans measures the fill plans (phases.go) of every
// goal-room level of a collection, as a Solve makes them before its
// packing search starts: one op is the whole collection, and worst-ms is
// the slowest level's plan. Needs SOKOD_LEVELS.
func BenchmarkFillPlans(b *testing.B) {
	for _, set := range []string{"xsokoban90", "sasquatch1", "sasquatch2", "sasquatch3"} {
		b.Run(set, func(b *testing.B) {
			var boards []*Board
			for _, l := range loadCollection(b, filepath.Join(levelsDir(b), set+".xsb")) {
				if brd := mustAnalyze(b, l); packingLevel(brd) {
					boards = append(boards, brd)
				}
			}
			var worst time.Duration
			for b.Loop() {
				for _, brd := range boards {
					start := time.Now()
					if newFillPlan(context.Background(), brd) == nil {
						b.Fatalf("%s: a goal-room level got no plan", set)
					}
					worst = max(worst, time.Since(start))
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
		})
	}
}
