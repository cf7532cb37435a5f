package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// TestDeadlockData runs the cases in testdata/deadlock: each is a position,
// written as a level, and the engine's verdict on it, so that a case is
// added by drawing a position and running the test with -rewrite (see
// README, Tests).
//
// The command is
//
//	deadlock [rule=matching|sum-min|greedy]
//
// with the position as its input. It prints the verdict of FindDeadlock,
// the deadlock tests the search runs on every push (dead squares, freeze,
// then an infinite bound of the heuristic: the bipartite test under the
// matching rule, the default), the lower bound of the built-in push
// distances under the rule, and for a verdict that names boxes the
// position with those boxes drawn 'X'.
func TestDeadlockData(t *testing.T) {
	datadriven.Walk(t, "testdata/deadlock", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "deadlock" {
				d.Fatalf(t, "unknown command %q (known: deadlock)", d.Cmd)
			}
			rule := RuleMatching
			if d.HasArg("rule") {
				var name string
				d.ScanArgs(t, "rule", &name)
				i := slices.IndexFunc([]Rule{RuleSumMin, RuleGreedy, RuleMatching}, func(r Rule) bool { return r.String() == name })
				if i < 0 {
					d.Fatalf(t, "unknown rule %q (known: matching, sum-min, greedy)", name)
				}
				rule = Rule(i)
			}
			l, err := sokoban.Parse(d.Input)
			if err != nil {
				d.Fatalf(t, "position: %v", err)
			}
			b, err := board.Analyze(l)
			if err != nil {
				return fmt.Sprintf("error: %v\n", err)
			}
			h := testHeuristic(b, rule)
			dl, err := FindDeadlock(b, h, b.StartBoxes, b.StartPlayer)
			if err != nil {
				return fmt.Sprintf("error: %v\n", err)
			}
			bound, ok, err := LowerBound(b, h, b.StartBoxes, b.StartPlayer)
			if err != nil {
				return fmt.Sprintf("error: %v\n", err)
			}
			var out strings.Builder
			fmt.Fprintf(&out, "verdict: %s\n", dl.Kind)
			if ok {
				fmt.Fprintf(&out, "bound: %d\n", bound)
			} else {
				out.WriteString("bound: inf\n")
			}
			if len(dl.Boxes) > 0 {
				out.WriteString(drawPosition(b, dl.Boxes))
			}
			return out.String()
		})
	})
}

// drawPosition draws b's start position in XSB, with '-' for floor (so
// that a line keeps its leading blanks in a test file) and 'X' on the boxes
// of marked.
func drawPosition(b *Board, marked []uint16) string {
	var out strings.Builder
	for y, line := range strings.Split(strings.TrimSuffix(b.Level.XSB(), "\n"), "\n") {
		row := []byte(line)
		for x := range row {
			sq := b.SquareOf[y*b.Width+x]
			switch {
			case sq < 0:
			case slices.Contains(marked, uint16(sq)):
				row[x] = 'X'
			case row[x] == ' ':
				row[x] = '-'
			}
		}
		out.Write(row)
		out.WriteByte('\n')
	}
	return out.String()
}
