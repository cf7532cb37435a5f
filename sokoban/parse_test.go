package sokoban_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sokod/sokod/sokoban"
)

// summary is what the collection tests compare: titles, notes, comments
// and boards in canonical XSB.
type summary struct {
	Header  []string
	Notes   []sokoban.Note
	Titles  []string
	Boards  []string
	Comment []string
	LevNote [][]sokoban.Note
	Lines   []int
}

func summarize(c *sokoban.Collection) summary {
	s := summary{Header: c.Header, Notes: c.Notes}
	for _, l := range c.Levels {
		s.Titles = append(s.Titles, l.Title)
		s.Boards = append(s.Boards, l.XSB())
		s.Comment = append(s.Comment, l.Comment)
		s.LevNote = append(s.LevNote, l.Notes)
		s.Lines = append(s.Lines, l.Line)
	}
	return s
}

const tiny = "#####\n#@$.#\n#####\n"

func TestParseCollection(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want summary
	}{
		{
			name: "semicolon title before board, header kept",
			src:  "; My set\n; by me\n\n; 1\n\n#####\n#@$.#\n#####\n\n; 2\n\n#####\n#.$@#\n#####\n",
			want: summary{
				Header: []string{"My set", "by me"},
				Titles: []string{"1", "2"},
				Boards: []string{tiny, "#####\n#.$@#\n#####\n"},
				Lines:  []int{6, 12},
			},
		},
		{
			name: "semicolon title after board (Microban III layout)",
			src:  "#####\n#@$.#\n#####\n; 1\n\n#####\n#.$@#\n#####\n; 2\n",
			want: summary{
				Titles: []string{"1", "2"},
				Boards: []string{tiny, "#####\n#.$@#\n#####\n"},
				Lines:  []int{1, 6},
			},
		},
		{
			name: "screen titles with CRLF and extra blank lines",
			src:  ";screen.01\r\n#####\r\n#@$.#\r\n#####\r\n\r\n\r\n\r\n;screen.02\r\n#####\r\n#.$@#\r\n#####\r\n",
			want: summary{
				Titles: []string{"screen.01", "screen.02"},
				Boards: []string{tiny, "#####\n#.$@#\n#####\n"},
				Lines:  []int{2, 9},
			},
		},
		{
			name: "plain title line after a blank line, header notes",
			src:  "Generated\nauthor:Someone\n\nFirst One\n#####\n#@$.#\n#####\n\nSecond One\n#####\n#.$@#\n#####\n",
			want: summary{
				Header: []string{"Generated"},
				Notes:  []sokoban.Note{{Key: "author", Value: "Someone"}},
				Titles: []string{"First One", "Second One"},
				Boards: []string{tiny, "#####\n#.$@#\n#####\n"},
				Lines:  []int{5, 10},
			},
		},
		{
			name: "SOK notes and comment block after the board",
			src:  "Level A\n\n#####\n#@$.#\n#####\nAuthor: Ann\nDate Created: 2001\nComment:\nline one\n\n#not a board#\nComment-End:\n\nLevel B\n\n#####\n#.$@#\n#####\nTitle: Real B\nComment: short\n",
			want: summary{
				Titles:  []string{"Level A", "Real B"},
				Boards:  []string{tiny, "#####\n#.$@#\n#####\n"},
				Comment: []string{"line one\n\n#not a board#", "Level B\nshort"},
				LevNote: [][]sokoban.Note{{{Key: "Author", Value: "Ann"}, {Key: "Date Created", Value: "2001"}}, nil},
				Lines:   []int{3, 16},
			},
		},
		{
			name: "semicolon title wins over a plain line, which is kept",
			src:  "; 154\n" + tiny + "\n; 155\n'The Dungeon'\n\n" + tiny,
			want: summary{Titles: []string{"154", "155"}, Boards: []string{tiny, tiny}, Comment: []string{"", "'The Dungeon'"}, Lines: []int{2, 9}},
		},
		{
			name: "title containing a colon and digits is not a note",
			src:  "Level 3: Start\n#####\n#@$.#\n#####\n",
			want: summary{Titles: []string{"Level 3: Start"}, Boards: []string{tiny}, Lines: []int{2}},
		},
		{
			name: "dash and underscore floors, trailing blanks, tabs",
			src:  "-#####  \n_#@$.#\t\n-#####\n\n\t#####\n\t#.$@#\n\t#####\n",
			want: summary{Boards: []string{tiny, "#####\n#.$@#\n#####\n"}, Lines: []int{1, 5}},
		},
		{
			name: "RLE rows, nested groups and row separators",
			src:  "; r\n5#|#@$.#|5#\n\n; g\n2(2#)#|#@$.#|(2(2#))#\n",
			want: summary{
				Titles: []string{"r", "g"},
				Boards: []string{tiny, tiny},
				Lines:  []int{2, 5},
			},
		},
		{
			name: "RLE row separators at line ends and starts count once",
			src:  "5#|\n#@$.#\n|5#\n",
			want: summary{Boards: []string{tiny}, Lines: []int{1}},
		},
		{
			name: "RLE counts across several lines",
			src:  "7#\n#-@$-.#\n7#\n",
			want: summary{Boards: []string{"#######\n# @$ .#\n#######\n"}, Lines: []int{1}},
		},
		{
			name: "semicolon title right under a titled board belongs to the next",
			src:  "; 1\n#####\n#@$.#\n#####\n; 2\n\n#####\n#.$@#\n#####\n",
			want: summary{Titles: []string{"1", "2"}, Boards: []string{tiny, "#####\n#.$@#\n#####\n"}, Lines: []int{2, 7}},
		},
		{
			name: "text after the last board is kept",
			src:  "#####\n#@$.#\n#####\n\n; the end\n",
			want: summary{Boards: []string{tiny}, Comment: []string{"the end"}, Lines: []int{1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := sokoban.ParseCollection(tc.src)
			if err != nil {
				t.Fatalf("ParseCollection: %v", err)
			}
			got := summarize(c)
			// Unset expectations mean "empty" for every level.
			n := len(got.Titles)
			if tc.want.Titles == nil {
				tc.want.Titles = make([]string, n)
			}
			if tc.want.Comment == nil {
				tc.want.Comment = make([]string, n)
			}
			if tc.want.LevNote == nil {
				tc.want.LevNote = make([][]sokoban.Note, n)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("collection mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want sokoban.ParseError
	}{
		{"empty", "", sokoban.ParseError{Kind: sokoban.ErrEmpty, Reason: "no board found"}},
		{"only text", "; title\nhello\n", sokoban.ParseError{Kind: sokoban.ErrEmpty, Reason: "no board found"}},
		{"unknown character", "#####\n#@$X.#\n#####\n", sokoban.ParseError{Kind: sokoban.ErrUnknownChar, Level: 1, Line: 2, Col: 4}},
		{"unknown non-ASCII character", "#####\n#@$é#\n#####\n", sokoban.ParseError{Kind: sokoban.ErrUnknownChar, Level: 1, Line: 2, Col: 4}},
		{"no player", "#####\n# $.#\n#####\n", sokoban.ParseError{Kind: sokoban.ErrNoPlayer, Level: 1, Line: 1, Col: 1}},
		{"two players", "######\n#@$.@#\n######\n", sokoban.ParseError{Kind: sokoban.ErrTwoPlayers, Level: 1, Line: 2, Col: 5}},
		{"player on goal counts as a player", "######\n#@$.+#\n######\n", sokoban.ParseError{Kind: sokoban.ErrTwoPlayers, Level: 1, Line: 2, Col: 5}},
		{"more boxes than goals", "######\n#@$$.#\n######\n", sokoban.ParseError{Kind: sokoban.ErrBoxesGoals, Level: 1, Line: 1, Col: 1}},
		{"more goals than boxes", "######\n#@$..#\n######\n", sokoban.ParseError{Kind: sokoban.ErrBoxesGoals, Level: 1, Line: 1, Col: 1}},
		{"no boxes", "####\n#@ #\n####\n", sokoban.ParseError{Kind: sokoban.ErrNoBoxes, Level: 1, Line: 1, Col: 1}},
		{"open border in a row", "#####\n#@$. \n#####\n", sokoban.ParseError{Kind: sokoban.ErrOpenBorder, Level: 1, Line: 2, Col: 5}},
		{"open border past a short row", "#####\n#@$.\n#####\n", sokoban.ParseError{Kind: sokoban.ErrOpenBorder, Level: 1, Line: 2, Col: 5}},
		{"open border at the top", "## ##\n#@$.#\n#####\n", sokoban.ParseError{Kind: sokoban.ErrOpenBorder, Level: 1, Line: 1, Col: 3}},
		{"wider than the limit", strings.Repeat("#", sokoban.MaxWidth+1) + "\n", sokoban.ParseError{Kind: sokoban.ErrTooLarge, Level: 1, Line: 1, Col: sokoban.MaxWidth + 1}},
		{"higher than the limit", strings.Repeat("#\n", sokoban.MaxHeight+1), sokoban.ParseError{Kind: sokoban.ErrTooLarge, Level: 1, Line: sokoban.MaxHeight + 1, Col: 2}},
		{"RLE count too large", "999999#\n", sokoban.ParseError{Kind: sokoban.ErrTooLarge, Level: 1, Line: 1, Col: 1}},
		{"RLE expansion that emits nothing", "#@$.#9999(9999(9999()))\n", sokoban.ParseError{Kind: sokoban.ErrTooLarge, Level: 1, Line: 1, Col: 20}},
		{"RLE unbalanced open", "3(#-\n", sokoban.ParseError{Kind: sokoban.ErrBadRLE, Level: 1, Line: 1, Col: 5}},
		{"RLE unbalanced close", "#-)#\n", sokoban.ParseError{Kind: sokoban.ErrBadRLE, Level: 1, Line: 1, Col: 3}},
		{"RLE count before nothing", "#3|#\n", sokoban.ParseError{Kind: sokoban.ErrBadRLE, Level: 1, Line: 1, Col: 2}},
		{"empty row inside a board", "5#||#@$.#|5#\n", sokoban.ParseError{Kind: sokoban.ErrBadRLE, Level: 1, Line: 1, Col: 1}},
		{"floor-only row inside a board", "5#|5-|#@$.#|5#\n", sokoban.ParseError{Kind: sokoban.ErrBadRLE, Level: 1, Line: 1, Col: 5}},
		{"second level names its number", tiny + "\n" + "#####\n#@$ #\n#####\n", sokoban.ParseError{Kind: sokoban.ErrBoxesGoals, Level: 2, Line: 5, Col: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sokoban.ParseCollection(tc.src)
			var pe *sokoban.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseCollection error = %v, want a *ParseError", err)
			}
			if diff := cmp.Diff(tc.want, *pe, cmpopts.IgnoreFields(sokoban.ParseError{}, "Reason")); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s\n(message: %v)", diff, err)
			}
			if tc.want.Reason != "" && pe.Reason != tc.want.Reason {
				t.Errorf("reason = %q, want %q", pe.Reason, tc.want.Reason)
			}
			if pe.Reason == "" || !strings.Contains(err.Error(), pe.Reason) {
				t.Errorf("Error() = %q does not give the reason %q", err.Error(), pe.Reason)
			}
		})
	}
}

func TestParseSingle(t *testing.T) {
	l, err := sokoban.Parse(tiny)
	if err != nil {
		t.Fatal(err)
	}
	x, y := l.Player()
	got := []int{l.Width(), l.Height(), x, y, l.Boxes(), l.Goals()}
	if diff := cmp.Diff([]int{5, 3, 1, 1, 1, 1}, got); diff != "" {
		t.Errorf("width, height, player x, y, boxes, goals (-want +got):\n%s", diff)
	}
	if l.Solved() {
		t.Error("Solved() = true for a box off its goal")
	}
	_, err = sokoban.Parse(tiny + "\n" + tiny)
	var pe *sokoban.ParseError
	if !errors.As(err, &pe) || pe.Kind != sokoban.ErrLevelCount || pe.Line != 5 {
		t.Errorf("Parse of two levels: error %v, want ErrLevelCount at line 5", err)
	}
	solved, err := sokoban.Parse("####\n#@*#\n####\n")
	if err != nil {
		t.Fatalf("an already solved level must parse: %v", err)
	}
	if !solved.Solved() {
		t.Error("Solved() = false for a level with every box on a goal")
	}
}

func TestWriteRoundTrip(t *testing.T) {
	src := "; Round\n    #####\n    #   #\n  ###$  #\n  #  $ $#\n### # ## #\n#.. # ## ####\n# $  $ + ..#\n##### ### ##\n    #     #\n    #######\nAuthor: Me\nComment:\ntwo\nlines\nComment-End:\n"
	orig, err := sokoban.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text string
	}{
		{"XSB", orig.XSB()},
		{"RLE", orig.RLE()},
		{"Text", orig.Text()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			back, err := sokoban.Parse(tc.text)
			if err != nil {
				t.Fatalf("Parse(%s output %q): %v", tc.name, tc.text, err)
			}
			if diff := cmp.Diff(orig.Cells(), back.Cells()); diff != "" {
				t.Errorf("board changed through %s (-want +got):\n%s", tc.name, diff)
			}
			if tc.name == "Text" {
				if diff := cmp.Diff(orig, back, cmp.AllowUnexported(sokoban.Level{}), cmpopts.IgnoreFields(sokoban.Level{}, "Line")); diff != "" {
					t.Errorf("level changed through Text (-want +got):\n%s", diff)
				}
			}
		})
	}
	if got, want := orig.RLE(), "4-5#|4-#3-#|2-3#$2-#|2-#2-$-$#|3#-#-2#-#|#2.-#-2#-4#|#-$2-$-+-2.#|5#-3#-2#|4-#5-#|4-7#"; got != want {
		t.Errorf("RLE() = %q, want %q", got, want)
	}
}

// TestCorpus parses every shared collection and checks its level count.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("SOKOD_LEVELS")
	if dir == "" {
		t.Skip("SOKOD_LEVELS is not set: skipping the corpus test (see README)")
	}
	want := map[string]int{
		"microban1.xsb": 155, "microban2.xsb": 135, "microban3.xsb": 101, "microban4.xsb": 102,
		"microban5.xsb": 26, "xsokoban90.xsb": 90, "sokevo107.xsb": 107,
		"sasquatch1.xsb": 50, "sasquatch2.xsb": 50, "sasquatch3.xsb": 50, "sasquatch4.xsb": 50,
		"sasquatch5.xsb": 50, "sasquatch6.xsb": 50, "sasquatch7.xsb": 50,
		"boxoban-unfiltered-test1000.xsb": 1000,
	}
	got := map[string]int{}
	for name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("read %s: %v", name, err)
			continue
		}
		c, err := sokoban.ParseCollection(string(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got[name] = len(c.Levels)
		for i, l := range c.Levels {
			if l.Title == "" {
				t.Errorf("%s level %d has no title", name, i+1)
			}
			// Every level survives the writers.
			for _, text := range []string{l.XSB(), l.RLE()} {
				back, err := sokoban.Parse(text)
				if err != nil {
					t.Errorf("%s level %d: written back %q does not parse: %v", name, i+1, text, err)
				} else if !cmp.Equal(l.Cells(), back.Cells()) {
					t.Errorf("%s level %d: board changed when written back as %q", name, i+1, text)
				}
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("level counts (-want +got):\n%s", diff)
	}
}
