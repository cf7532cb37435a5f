package board_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// TestAnalyzeData runs the cases in testdata/analyze: each is a level and
// the analysis drawn as boards, so that a case is added by writing a level
// and running the test with -rewrite (see README, Tests).
//
// The command is
//
//	analyze [VIEW...]
//
// with the level as its input, and it prints the named views, or all of
// them, each as a drawing of the board (walls '#', floor '-', outside ' '):
//
//	impossible  why the analysis alone proves the level unsolvable, if it does
//	dead        'x' on dead squares
//	dist        a lone box's push distance to its nearest goal: 0-9, then
//	            a-z for 10-35, '+' beyond, 'x' where no goal is reachable
//	tunnels     each tunnel's squares by a letter: 'a' for the first, ...
//	gates       'g' on squares where a box would cut the player's floor in two
//	rooms       each goal room's squares by a letter ('A' on its goals), its
//	            entrances '+'
//	areas       each goal area's goals numbered in its packing order (1-9,
//	            then a-z), its entrances '+'
func TestAnalyzeData(t *testing.T) {
	datadriven.Walk(t, "testdata/analyze", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "analyze" {
				d.Fatalf(t, "unknown command %q (known: analyze)", d.Cmd)
			}
			l, err := sokoban.Parse(d.Input)
			if err != nil {
				d.Fatalf(t, "level: %v", err)
			}
			b, err := board.Analyze(l)
			if err != nil {
				return fmt.Sprintf("error: %v\n", err)
			}
			views := analyzeViews
			if len(d.CmdArgs) > 0 {
				views = nil
				for _, a := range d.CmdArgs {
					views = append(views, a.Key)
				}
			}
			var out strings.Builder
			for _, v := range views {
				draw, ok := viewDrawers[v]
				if !ok {
					d.Fatalf(t, "unknown view %q (known: %s)", v, strings.Join(analyzeViews, ", "))
				}
				fmt.Fprintf(&out, "%s:\n%s", v, draw(b))
			}
			return out.String()
		})
	})
}

// analyzeViews are the views of the analyze command in the order printed.
var analyzeViews = []string{"impossible", "dead", "dist", "tunnels", "gates", "rooms", "areas"}

// viewDrawers draw each view of the analyze command.
var viewDrawers = map[string]func(*board.Board) string{
	"impossible": func(b *board.Board) string {
		if b.Impossible == "" {
			return "no\n"
		}
		return b.Impossible + "\n"
	},
	"dead": func(b *board.Board) string {
		return drawBoard(b, func(sq uint16) byte {
			if b.Dead[sq] {
				return 'x'
			}
			return 0
		})
	},
	"dist": func(b *board.Board) string {
		goals := len(b.Goals)
		return drawBoard(b, func(sq uint16) byte {
			best := board.Inf
			for g := range goals {
				best = min(best, int(b.Dist[int(sq)*goals+g]))
			}
			switch {
			case best >= board.Inf:
				return 'x'
			case best < 10:
				return byte('0' + best)
			case best < 36:
				return byte('a' + best - 10)
			}
			return '+'
		})
	},
	"tunnels": func(b *board.Board) string {
		return drawSets(b, b.Tunnels(), nil)
	},
	"gates": func(b *board.Board) string {
		return drawBoard(b, func(sq uint16) byte {
			if b.Gate(sq) {
				return 'g'
			}
			return 0
		})
	},
	"rooms": func(b *board.Board) string {
		rooms := b.GoalRooms()
		sets := make([][]uint16, len(rooms))
		var entrances []uint16
		for i, r := range rooms {
			sets[i] = r.Squares
			entrances = append(entrances, r.Entrances...)
		}
		return drawSets(b, sets, entrances)
	},
	"areas": func(b *board.Board) string {
		if len(b.Areas) == 0 {
			return "none\n"
		}
		var out strings.Builder
		for _, a := range b.Areas {
			rank := map[uint16]int{}
			for i, sq := range a.Order {
				rank[sq] = i + 1
			}
			out.WriteString(drawBoard(b, func(sq uint16) byte {
				if r, ok := rank[sq]; ok {
					if r < 10 {
						return byte('0' + r)
					}
					if r < 36 {
						return byte('a' + r - 10)
					}
					return '*'
				}
				if containsSquare(a.Entrances, sq) {
					return '+'
				}
				return 0
			}))
		}
		return out.String()
	},
}

// drawSets draws each set of squares by a letter of its own ('a' for the
// first), upper case on goals, and the squares of more a '+'.
func drawSets(b *board.Board, sets [][]uint16, more []uint16) string {
	return drawBoard(b, func(sq uint16) byte {
		for i, s := range sets {
			if containsSquare(s, sq) {
				c := byte('a' + i%26)
				if b.GoalIndex[sq] >= 0 {
					c -= 'a' - 'A'
				}
				return c
			}
		}
		if containsSquare(more, sq) {
			return '+'
		}
		return 0
	})
}

func containsSquare(s []uint16, sq uint16) bool {
	for _, q := range s {
		if q == sq {
			return true
		}
	}
	return false
}

// drawBoard draws b one row a line: '#' for walls, mark's byte on interior
// squares where it returns one and '-' on the others, ' ' outside, with
// trailing blanks cut so that editors keep the files as written.
func drawBoard(b *board.Board, mark func(sq uint16) byte) string {
	var out strings.Builder
	for y := range b.Height {
		row := make([]byte, b.Width)
		for x := range b.Width {
			row[x] = ' '
			if sq := b.SquareOf[y*b.Width+x]; sq >= 0 {
				row[x] = '-'
				if c := mark(uint16(sq)); c != 0 {
					row[x] = c
				}
			} else if b.Level.At(x, y).Has(sokoban.Wall) {
				row[x] = '#'
			}
		}
		out.WriteString(strings.TrimRight(string(row), " "))
		out.WriteByte('\n')
	}
	return out.String()
}
