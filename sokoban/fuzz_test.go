package sokoban_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sokod/sokod/sokoban"
)

// FuzzParseCollection checks that no input makes the parser panic or hang,
// and that every level it accepts survives being written and read back.
func FuzzParseCollection(f *testing.F) {
	for _, s := range []string{
		tiny, twoBoxes, turnBox,
		"; 1\r\n\r\n####\r\n# .#\r\n#  ###\r\n#*@  #\r\n#  $ #\r\n#  ###\r\n####\r\n",
		"Title: x\n5#|#@$.#|5#\nAuthor: y\nComment:\nz\nComment-End:\n",
		"2(2#)#|#@$.#|(2(2#))#\n; t\n",
		"\t#####\n\t#@$.#\n\t#####\n",
		"#@$X.#", "3(#-", "#-)#", "9999(9999())",
		yascFile, "; #1\n#####\n#@$.#\n#####\nSolution\nrR\nSolver: x\nTwo\n#####\n#@$.#\n#####\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := sokoban.ParseCollection(src)
		if err != nil {
			return
		}
		text := c.Text()
		back, err := sokoban.ParseCollection(text)
		if err != nil {
			t.Fatalf("collection written as %q does not parse: %v", text, err)
		}
		if diff := cmp.Diff(c, back, cmp.AllowUnexported(sokoban.Level{}), cmpopts.IgnoreFields(sokoban.Level{}, "Line"), cmpopts.IgnoreFields(sokoban.Snapshot{}, "Line")); diff != "" {
			t.Fatalf("collection changed when written as %q (-want +got):\n%s", text, diff)
		}
		for i, l := range c.Levels {
			for _, text := range []string{l.XSB(), l.RLE(), l.Text()} {
				back, err := sokoban.Parse(text)
				if err != nil {
					t.Fatalf("level %d written as %q does not parse: %v", i+1, text, err)
				}
				if !cmp.Equal(l.Cells(), back.Cells()) {
					t.Fatalf("level %d changed when written as %q", i+1, text)
				}
			}
		}
	})
}

// FuzzReplay checks that no solution text makes parsing or replay panic,
// and that the metrics of a legal solution are consistent.
func FuzzReplay(f *testing.F) {
	levels := []string{tiny, twoBoxes, turnBox, "#######\n#@$$..#\n#######\n"}
	for i, s := range []string{"rR", "lLdRurD", "RRurD", "2(uL)", "lLL", "u", "L", "3(r2(dU))", "(("} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		l, err := sokoban.Parse(levels[int(which)%len(levels)])
		if err != nil {
			t.Fatal(err)
		}
		sol, err := sokoban.ParseSolution(text)
		if err != nil || len(sol) > 1<<20 {
			// Millions of steps make each run slow, and replay nothing a
			// shorter text does not.
			return
		}
		again, err := sokoban.ParseSolution(sol.String())
		if err != nil || !slices.Equal(sol, again) {
			t.Fatalf("LURD %q does not read back the same: %v", sol, err)
		}
		m, err := sokoban.Replay(l, sol)
		if err == nil && m.Moves != len(sol) {
			t.Fatalf("legal solution of %d steps counted %d moves", len(sol), m.Moves)
		}
		// ReplayText, which plays as it reads, agrees.
		tm, terr := sokoban.ReplayText(l, text)
		if tm != m || (terr == nil) != (err == nil) || terr != nil && terr.Error() != err.Error() {
			t.Fatalf("%q: ReplayText %+v, %v; Replay %+v, %v", text, tm, terr, m, err)
		}
		if m.Pushes > m.Moves || m.BoxChanges > m.BoxLines || m.BoxLines > m.Pushes ||
			m.PushingSessions > m.Pushes || m.PlayerLines > m.Moves || (m.Moves > 0) != (m.PlayerLines > 0) {
			t.Fatalf("inconsistent metrics %+v for %q", m, sol)
		}
	})
}

// FuzzParseLevel checks that ParseLevel, which keeps one level of a
// collection, reads that level as ParseCollection does.
func FuzzParseLevel(f *testing.F) {
	for _, s := range []string{tiny, "; a\n" + tiny + "\n; b\n" + twoBoxes, yascFile, "Comment:\n" + tiny + "Comment-End:\n" + tiny} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, src string, n uint8) {
		c, cerr := sokoban.ParseCollection(src)
		l, count, err := sokoban.ParseLevel(src, int(n))
		if (err == nil) != (cerr == nil) {
			t.Fatalf("ParseLevel error %v, ParseCollection error %v", err, cerr)
		}
		if err != nil {
			return
		}
		if count != len(c.Levels) {
			t.Fatalf("ParseLevel counts %d levels, ParseCollection reads %d", count, len(c.Levels))
		}
		var want *sokoban.Level
		if int(n) >= 1 && int(n) <= count {
			want = c.Levels[n-1]
		}
		if diff := cmp.Diff(want, l, cmp.AllowUnexported(sokoban.Level{})); diff != "" {
			t.Fatalf("level %d (-ParseCollection +ParseLevel):\n%s", n, diff)
		}
	})
}
