package sokoban

import (
	"fmt"
	"strings"
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
	p := solutionParser{text: text}
	sol, err := p.sequence(0, false)
	if err != nil {
		return nil, err
	}
	return sol, nil
}

type solutionParser struct {
	text string
	i    int
}

func (p *solutionParser) skipSpace() {
	for p.i < len(p.text) && strings.IndexByte(" \t\r\n\v\f", p.text[p.i]) >= 0 {
		p.i++
	}
}

func (p *solutionParser) errorf(format string, args ...any) *SolutionError {
	return &SolutionError{Offset: p.i, Reason: fmt.Sprintf(format, args...)}
}

func (p *solutionParser) sequence(depth int, inGroup bool) (Solution, error) {
	if depth > 64 {
		return nil, p.errorf("groups nested too deep")
	}
	var out Solution
	for {
		p.skipSpace()
		if p.i == len(p.text) {
			if inGroup {
				return nil, p.errorf("'(' without a matching ')'")
			}
			return out, nil
		}
		if p.text[p.i] == ')' {
			if !inGroup {
				return nil, p.errorf("')' without a matching '('")
			}
			p.i++
			return out, nil
		}
		count, start := 1, p.i
		if c := p.text[p.i]; c >= '0' && c <= '9' {
			count = 0
			for p.i < len(p.text) && p.text[p.i] >= '0' && p.text[p.i] <= '9' {
				count = count*10 + int(p.text[p.i]-'0')
				if count > MaxSolutionSteps {
					p.i = start
					return nil, p.errorf("count larger than %d", MaxSolutionSteps)
				}
				p.i++
			}
			p.skipSpace()
			if p.i == len(p.text) || p.text[p.i] == ')' {
				return nil, p.errorf("count %d stands before nothing", count)
			}
		}
		if p.text[p.i] != '(' {
			st, ok := stepOf(p.text[p.i])
			if !ok {
				return nil, p.errorf("%q is not a LURD step", p.text[p.i])
			}
			if len(out)+count > MaxSolutionSteps {
				p.i = start
				return nil, p.errorf("solution longer than %d steps", MaxSolutionSteps)
			}
			p.i++
			for range count {
				out = append(out, st)
			}
			continue
		}
		p.i++
		unit, err := p.sequence(depth+1, true)
		if err != nil {
			return nil, err
		}
		if len(out)+count*len(unit) > MaxSolutionSteps {
			p.i = start
			return nil, p.errorf("solution longer than %d steps", MaxSolutionSteps)
		}
		if len(unit) > 0 {
			for range count {
				out = append(out, unit...)
			}
		}
	}
}

func stepOf(c byte) (Step, bool) {
	i := strings.IndexByte("lurdLURD", c)
	if i < 0 {
		return Step{}, false
	}
	return Step{Dir: Direction(i % 4), Push: i >= 4}, true
}
