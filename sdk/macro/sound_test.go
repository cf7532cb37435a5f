package macro

import (
	"testing"

	"github.com/sokod/sokod/sokoban"
)

// solutions are solutions of the test levels (found once by sokod's
// search; any solution will do), by level name; "corridors" has none.
var solutions = map[string]string{
	"pushed in, open": "rRRurrrDulD",
	"fence free":      "lldRRurrddlUUruLLL",
	"goal open":       "ulllldLrurrdLLurrrrdLLL",
	"test level":      "dRRluRR",
	"ring":            "ldlllluuuruRlulDDDDldRRRRRlluLrdrruuuruulDDDDLdlluRldlluRdrruLdlUUUluurDDDDldRRRlluuuurrRdrddLLLrrruululllddDldRRluuuurrrurDlllldddrrrruUruLLLLulDDDDldR",
	"open room":       "lllllllddrUluRRRRurrrdrrdLLLLdlUlllluuurDldRRurDldRRdrruurrruLLLLLLLdlluurDldRRurDldRdrddlUUUUluRRRRRdrruulDrdLLururuulllldDrdLLLLdlluurDldRRurrruuurrdLulDDrdrddldDuuruulululDrrdrrddddldLLLulllluuuuuuurrdRurDlddllddddrdRRRllllluuuuuuuurDDDDDDldRRRRurDururuululLulllddrrUruLLulDDDDDDldRRRurDurruruuluuurrDDDDDDrdLLLLLulD",
	"xsokoban 1":      "ullluuuLUllDlldddrRRRRRRRRRRRRurDllllllllllllllulldRRRRRRRRRRRRRRRlllllllluuulLuuurDlulDrrDldLDDDrrrrddllllUdrrrruulllLLLulldRRRRRRRRRRRRRdrUluRRlldlllllluuuLululDDDDuuurrdrdddllLLLulldRRRRRRRRRRRRRRurDlllllllluuulLulDDDuurrrdddllLLLulldRRRRRRRRRRRRRRlllllllllllluuuRldddrrrrruuullulDDDuulldddrRRRRRRRRRRdrUluR",
}

// TestDeadlockTestsSound replays a solution of each test level and checks
// that neither deadlock test calls any position on it dead: every one of
// them is solvable.
func TestDeadlockTestsSound(t *testing.T) {
	levels := append([]struct{ name, text string }{
		{"pushed in, open", "#########\n####    #\n#@ $ .$$#\n######..#\n#########\n"},
		{"fence free", "########\n#.     #\n#  @   #\n# $    #\n## #  ##\n## #####\n########\n"},
		{"goal open", "#########\n###     #\n#.*.$ $@#\n#########\n"},
	}, testLevels...)
	for _, lv := range levels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			text, ok := solutions[lv.name]
			if !ok {
				t.Skip("no solution to replay")
			}
			sol, err := sokoban.ParseSolution(text)
			if err != nil {
				t.Fatal(err)
			}
			if m, err := sokoban.Replay(b.Level, sol); err != nil || !m.Solved {
				t.Fatalf("the stored solution does not solve the level: %v", err)
			}
			g := NewGen(b)
			pos := NewPos(b)
			pos.Set(b.StartBoxes, b.StartPlayer)
			boxes := append([]uint16(nil), b.StartBoxes...)
			player := b.StartPlayer
			checked := 0
			for i, st := range sol {
				to := b.Nbr[int(player)*4+int(st.Dir)]
				player = to
				if !st.Push {
					continue
				}
				boxes[pos.BoxAt[to]] = b.Nbr[int(to)*4+int(st.Dir)]
				pos.Set(boxes, player)
				if !g.Matchable(pos) {
					t.Errorf("step %d: Matchable calls a position on the solution dead", i+1)
				}
				if g.CorralDeadlock(pos) {
					t.Errorf("step %d: CorralDeadlock calls a position on the solution dead", i+1)
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("the solution has no pushes")
			}
		})
	}
}
