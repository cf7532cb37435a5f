package sokoban

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Step is one player step of a solution: a move, or a push when the step
// moves a box.
type Step struct {
	Dir  Direction
	Push bool
}

// Byte returns the step's LURD letter: lower case for a move, upper case
// for a push.
func (s Step) Byte() byte {
	c := "lurd"[s.Dir&3]
	if s.Push {
		c -= 'a' - 'A'
	}
	return c
}

// Solution is a sequence of steps, written in LURD notation.
type Solution []Step

// String returns the solution in LURD notation on one line.
func (s Solution) String() string {
	b := make([]byte, len(s))
	for i, st := range s {
		b[i] = st.Byte()
	}
	return string(b)
}

// MaxSolutionSteps bounds the length of a parsed solution, so a small
// run-length text cannot ask for unbounded memory.
const MaxSolutionSteps = 10_000_000

// SolutionError says where a solution text is malformed: Offset is the
// 0-based byte offset in the text.
type SolutionError struct {
	Offset int
	Reason string
}

// Error returns "solution text, byte N: reason".
func (e *SolutionError) Error() string {
	return fmt.Sprintf("solution text, byte %d: %s", e.Offset+1, e.Reason)
}

// ParseSolution reads LURD notation: 'l', 'u', 'r', 'd' for moves and
// 'L', 'U', 'R', 'D' for pushes. White space and line breaks are ignored;
// a count before a letter or a parenthesised group repeats it ("3r",
// "2(uL)"), and groups nest.
func ParseSolution(text string) (Solution, error) {
	prog, n, err := compileLURD(text)
	if err != nil || n == 0 {
		return nil, err
	}
	sol := make(Solution, 0, n)
	walkLURD(prog, func(st Step) bool {
		sol = append(sol, st)
		return true
	})
	return sol, nil
}

// compileLURD checks text and returns it as a program for walkLURD, with
// its length in steps: without white space, and without the counts,
// letters and groups that make no step (a zero count, an empty group), so
// that walking it costs time in proportion to the steps it makes. The
// program is never longer than text.
func compileLURD(text string) (prog string, steps int, err error) {
	p := solutionParser{text: text, out: make([]byte, 0, len(text))}
	n, err := p.sequence(0, false)
	if err != nil {
		return "", 0, err
	}
	return string(p.out), n, nil
}

// walkLURD calls yield with each step of a program from compileLURD, in
// order, until yield returns false.
func walkLURD(prog string, yield func(Step) bool) {
	w := lurdWalker{prog: prog, yield: yield}
	w.sequence(0)
}

type lurdWalker struct {
	prog  string
	yield func(Step) bool
}

// sequence walks the items from i to the end of the program or of the
// group it is in, and returns where it stopped (at the ')'); ok is false
// once yield has asked to stop.
func (w *lurdWalker) sequence(i int) (end int, ok bool) {
	for i < len(w.prog) && w.prog[i] != ')' {
		count := 1
		if c := w.prog[i]; c >= '0' && c <= '9' {
			count = 0
			for ; w.prog[i] >= '0' && w.prog[i] <= '9'; i++ {
				count = count*10 + int(w.prog[i]-'0')
			}
		}
		if w.prog[i] == '(' {
			for range count {
				if end, ok = w.sequence(i + 1); !ok {
					return 0, false
				}
			}
			i = end + 1 // past the ')'
			continue
		}
		st, _ := stepOf(w.prog[i])
		i++
		for range count {
			if !w.yield(st) {
				return 0, false
			}
		}
	}
	return i, true
}

type solutionParser struct {
	text string
	i    int
	out  []byte // the program (compileLURD)
}

func (p *solutionParser) skipSpace() {
	for p.i < len(p.text) && strings.IndexByte(" \t\r\n\v\f", p.text[p.i]) >= 0 {
		p.i++
	}
}

func (p *solutionParser) errorf(format string, args ...any) *SolutionError {
	return &SolutionError{Offset: p.i, Reason: fmt.Sprintf(format, args...)}
}

// sequence checks the items up to the end of the text or, in a group, its
// ')', writes the program of those that make steps, and returns how many
// steps they make.
func (p *solutionParser) sequence(depth int, inGroup bool) (int, error) {
	if depth > 64 {
		return 0, p.errorf("groups nested too deep")
	}
	n := 0
	for {
		p.skipSpace()
		if p.i == len(p.text) {
			if inGroup {
				return 0, p.errorf("'(' without a matching ')'")
			}
			return n, nil
		}
		if p.text[p.i] == ')' {
			if !inGroup {
				return 0, p.errorf("')' without a matching '('")
			}
			p.i++
			return n, nil
		}
		count, start, mark := 1, p.i, len(p.out)
		if c := p.text[p.i]; c >= '0' && c <= '9' {
			count = 0
			for p.i < len(p.text) && p.text[p.i] >= '0' && p.text[p.i] <= '9' {
				count = count*10 + int(p.text[p.i]-'0')
				if count > MaxSolutionSteps {
					p.i = start
					return 0, p.errorf("count larger than %d", MaxSolutionSteps)
				}
				p.i++
			}
			p.skipSpace()
			if p.i == len(p.text) || p.text[p.i] == ')' {
				return 0, p.errorf("count %d stands before nothing", count)
			}
			if count != 1 {
				p.out = strconv.AppendInt(p.out, int64(count), 10)
			}
		}
		if p.text[p.i] != '(' {
			if _, ok := stepOf(p.text[p.i]); !ok {
				return 0, p.errorf("%s is not a LURD step", charAt(p.text, p.i))
			}
			if n+count > MaxSolutionSteps {
				p.i = start
				return 0, p.errorf("solution longer than %d steps", MaxSolutionSteps)
			}
			p.out = append(p.out, p.text[p.i])
			p.i++
			n += count
			if count == 0 {
				p.out = p.out[:mark]
			}
			continue
		}
		p.out = append(p.out, '(')
		p.i++
		unit, err := p.sequence(depth+1, true)
		if err != nil {
			return 0, err
		}
		if n+count*unit > MaxSolutionSteps {
			p.i = start
			return 0, p.errorf("solution longer than %d steps", MaxSolutionSteps)
		}
		p.out = append(p.out, ')')
		n += count * unit
		if count*unit == 0 {
			p.out = p.out[:mark]
		}
	}
}

// charAt names the character at byte i of s for an error message: the
// whole character, or the byte when s is not UTF-8 there.
func charAt(s string, i int) string {
	if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("byte 0x%02x", s[i])
}

func stepOf(c byte) (Step, bool) {
	i := strings.IndexByte("lurdLURD", c)
	if i < 0 {
		return Step{}, false
	}
	return Step{Dir: Direction(i % 4), Push: i >= 4}, true
}
