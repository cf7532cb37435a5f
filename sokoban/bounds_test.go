package sokoban_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/sokoban"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseBoundsMemory parses texts of a mebibyte built to make a parser
// expand them: what it allocates stays within a small multiple of the
// text. (A line of '#' was tokenised whole before its width was checked,
// 126 times its size; a board followed by many comment lines cost time
// and memory quadratic in their number.)
func TestParseBoundsMemory(t *testing.T) {
	const n = 1 << 20
	board := "#####\n#@$.#\n#####\n"
	tests := []struct {
		name  string
		text  string
		bytes uint64 // most bytes allocated
	}{
		{"a line of walls", strings.Repeat("#", n), 64 << 10},
		{"run-length rows", strings.Repeat("99#|", n/4), 1 << 20}, // at most a whole board
		{"rows of walls", strings.Repeat("#\n", n/2), 8 * n},
		{"blank lines", strings.Repeat("\n", n), 64 << 10},
		{"text lines", strings.Repeat("x\n", n/2), 8 * n},
		{"comment lines after a board", board + strings.Repeat("x\n", n/2), 8 * n},
		{"a comment block", board + "Comment:\n" + strings.Repeat("x\n", n/2), 8 * n},
		// What is read takes room too: a Note is 32 bytes, a Header line
		// 16, for 5 and 3 bytes of text here.
		{"notes", board + strings.Repeat("K: v\n", n/5), 10 * n},
		{"header lines", strings.Repeat(";t\n", n/3) + board, 10 * n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := allocated(func() { _, _ = sokoban.ParseCollection(tt.text) })
			if got > tt.bytes {
				t.Errorf("parsing %d bytes allocated %d KiB, want at most %d KiB", len(tt.text), got>>10, tt.bytes>>10)
			}
		})
	}
}

// TestParseTooLarge: a text over MaxInputBytes is refused unread.
func TestParseTooLarge(t *testing.T) {
	_, err := sokoban.ParseCollection(strings.Repeat(" ", sokoban.MaxInputBytes+1))
	var pe *sokoban.ParseError
	if !errors.As(err, &pe) || pe.Kind != sokoban.ErrTooLarge {
		t.Errorf("got %v, want a too-large error", err)
	}
}

// TestParseLevel: one level of a collection, as ParseCollection reads it,
// and the number of levels.
func TestParseLevel(t *testing.T) {
	src := "; one\n#####\n#@$.#\n#####\nComment: first\n\n; two\n######\n#@$ .#\n######\nAuthor: b\n\n; three\n#####\n#.$@#\n#####\n"
	c, err := sokoban.ParseCollection(src)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= 4; n++ {
		l, count, err := sokoban.ParseLevel(src, n)
		if err != nil || count != 3 {
			t.Fatalf("level %d: %v, %d levels", n, err, count)
		}
		var want *sokoban.Level
		if n >= 1 && n <= 3 {
			want = c.Levels[n-1]
		}
		if diff := cmp.Diff(want, l, cmp.AllowUnexported(sokoban.Level{})); diff != "" {
			t.Errorf("level %d (-ParseCollection +ParseLevel):\n%s", n, diff)
		}
	}
	if _, _, err := sokoban.ParseLevel("#####\n#@$.#\n#####\n\n####\n#@$#\n####\n", 1); err == nil {
		t.Error("an invalid second level: no error")
	}
}

// TestByteOrderMark: a UTF-8 byte order mark before the text is no part
// of the board (it made the first row's wall a floor square).
func TestByteOrderMark(t *testing.T) {
	plain, err := sokoban.Parse("#####\n#@$.#\n#####\n")
	if err != nil {
		t.Fatal(err)
	}
	bom, err := sokoban.Parse("\uFEFF#####\n#@$.#\n#####\n")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, bom, cmp.AllowUnexported(sokoban.Level{})); diff != "" {
		t.Errorf("with a byte order mark (-without +with):\n%s", diff)
	}
}

// TestReplayText: ReplayText agrees with ParseSolution and Replay, and
// plays a short text of ten million steps without storing them.
func TestReplayText(t *testing.T) {
	l, err := sokoban.Parse("#######\n#@ $ .#\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "rR", "r R R", "2(r)R", "rRR", "rRRR", "l", "0(rR)rRR", "2(0r)rRR", "r(", "x", "3(2(rl))rRR", "1000(10000(rl))rRR"} {
		wantM, wantErr := func() (sokoban.Metrics, error) {
			sol, err := sokoban.ParseSolution(text)
			if err != nil {
				return sokoban.Metrics{}, err
			}
			return sokoban.Replay(l, sol)
		}()
		m, err := sokoban.ReplayText(l, text)
		if diff := cmp.Diff(wantM, m); diff != "" {
			t.Errorf("%q: metrics (-Replay +ReplayText):\n%s", text, diff)
		}
		if diff := cmp.Diff(wantErr, err, cmpopts.EquateErrors()); diff != "" && (wantErr == nil || err == nil || wantErr.Error() != err.Error()) {
			t.Errorf("%q: error %v, want %v", text, err, wantErr)
		}
	}
	if got := allocated(func() { _, _ = sokoban.ReplayText(l, "1000(10000(r))") }); got > 64<<10 {
		t.Errorf("replaying ten million steps allocated %d KiB", got>>10)
	}
}

// TestSolutionErrorNamesCharacter: a character outside LURD is named
// whole, not by its first byte.
func TestSolutionErrorNamesCharacter(t *testing.T) {
	for text, want := range map[string]string{"ré": `'é' is not a LURD step`, "r\xff": "byte 0xff is not a LURD step"} {
		_, err := sokoban.ParseSolution(text)
		var se *sokoban.SolutionError
		if !errors.As(err, &se) || se.Reason != want || se.Offset != 1 {
			t.Errorf("%q: %v, want %q at byte 2", text, err, want)
		}
	}
}
