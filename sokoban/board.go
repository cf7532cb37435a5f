package sokoban

import (
	"strings"
	"unicode/utf8"
)

// pos is a 1-based source position.
type pos struct{ line, col int }

// square is one decoded board character with where it was written.
type square struct {
	ch  byte
	src pos
}

// decoder expands the run-length encoding of a board's rows into plain
// rows. It works on the whole board at once, with each source line ending
// a row, so that groups and '|' separators may be used anywhere. It reads
// the text in place, a character at a time, and checks the board's size
// as it writes each square: a line of ten million '#' costs it 129 squares.
type decoder struct {
	p       *parser
	lines   []ref
	cur     cursor
	rows    [][]square
	passes  int  // group passes so far
	lastSep byte // the row separator just decoded, if no square followed it
}

// cursor is a place in a board's text: byte bi of line lines[li], whose
// text (without trailing blanks) is text and where col characters stand
// before bi. bi == len(text) is the line's end, read as '\n'.
type cursor struct {
	li, bi, col int
	text        string
}

// maxCount bounds one run-length count and maxPasses the passes over
// groups; larger values cannot make a board that fits the limits.
const (
	maxCount  = MaxWidth * MaxHeight
	maxPasses = 4 * MaxWidth * MaxHeight
)

func (p *parser) decodeBoard(lines []ref) ([][]square, *ParseError) {
	d := &decoder{p: p, lines: lines, rows: [][]square{nil}}
	d.cur = d.lineStart(0)
	if err := d.sequence(0, false); err != nil {
		return nil, err
	}
	// Drop the empty row left after the final line end.
	for len(d.rows) > 0 && len(d.rows[len(d.rows)-1]) == 0 {
		d.rows = d.rows[:len(d.rows)-1]
	}
	return d.rows, nil
}

// lineStart is the cursor at the start of line li (past the last line:
// the end of the text).
func (d *decoder) lineStart(li int) cursor {
	c := cursor{li: li}
	if li < len(d.lines) {
		text, _ := lineAt(d.p.src, int(d.lines[li].off))
		c.text = trimBlanks(text)
	}
	return c
}

// peek returns the character at the cursor, 0 for one outside ASCII, '\n'
// at a line's end; ok is false at the end of the text.
func (d *decoder) peek() (t square, ok bool) {
	c := &d.cur
	if c.li >= len(d.lines) {
		return square{}, false
	}
	t.src = pos{d.lines[c.li].line(), c.col + 1}
	if c.bi == len(c.text) {
		t.ch = '\n'
		return t, true
	}
	if r, _ := utf8.DecodeRuneInString(c.text[c.bi:]); r < utf8.RuneSelf {
		t.ch = byte(r)
	}
	return t, true
}

// next moves the cursor past the character at it.
func (d *decoder) next() {
	c := &d.cur
	if c.bi == len(c.text) {
		d.cur = d.lineStart(c.li + 1)
		return
	}
	_, size := utf8.DecodeRuneInString(c.text[c.bi:])
	c.bi += size
	c.col++
}

// here is the position of the character at the cursor, or of the last
// line's end at the end of the text.
func (d *decoder) here() pos {
	if t, ok := d.peek(); ok {
		return t.src
	}
	last := d.lineStart(len(d.lines) - 1)
	return pos{d.lines[last.li].line(), utf8.RuneCountInString(last.text) + 1}
}

// sequence decodes items until the end of input or, inside a group, the
// closing parenthesis. depth guards against pathological nesting.
func (d *decoder) sequence(depth int, inGroup bool) *ParseError {
	if depth > 64 {
		return errorAt(ErrBadRLE, d.here(), "run-length groups nested too deep")
	}
	for {
		t, ok := d.peek()
		if !ok {
			break
		}
		if t.ch == ')' {
			if !inGroup {
				return errorAt(ErrBadRLE, t.src, "')' without a matching '('")
			}
			return nil
		}
		count := 1
		if t.ch >= '0' && t.ch <= '9' {
			count = 0
			for c, ok := d.peek(); ok && c.ch >= '0' && c.ch <= '9'; c, ok = d.peek() {
				count = count*10 + int(c.ch-'0')
				if count > maxCount {
					return errorAt(ErrTooLarge, t.src, "run-length count too large for a board of at most %dx%d", MaxWidth, MaxHeight)
				}
				d.next()
			}
			if c, ok := d.peek(); !ok || strings.IndexByte("\n)|", c.ch) >= 0 {
				return errorAt(ErrBadRLE, t.src, "run-length count %d stands before nothing", count)
			}
		}
		if err := d.repeat(depth, count); err != nil {
			return err
		}
	}
	if inGroup {
		return errorAt(ErrBadRLE, d.here(), "'(' without a matching ')'")
	}
	return nil
}

// repeat decodes the character or group at the cursor count times.
func (d *decoder) repeat(depth, count int) *ParseError {
	t, _ := d.peek()
	d.next()
	if t.ch != '(' {
		for range count {
			if err := d.emit(t); err != nil {
				return err
			}
		}
		return nil
	}
	start := d.cur
	for range count {
		// Every pass costs work even when the group emits nothing, as in
		// "9999(9999())": bound the total so no input can hang the parser.
		if d.passes++; d.passes > maxPasses {
			return errorAt(ErrTooLarge, t.src, "run-length expansion too large")
		}
		d.cur = start
		if err := d.sequence(depth+1, true); err != nil {
			return err
		}
	}
	if count == 0 {
		// As "0#" writes nothing, "0(" is read as nothing: what follows
		// is read on, and its ')' is then one too many.
		return nil
	}
	d.next() // the ')'
	return nil
}

func (d *decoder) emit(t square) *ParseError {
	switch t.ch {
	case '\n', '|':
		// "|" at the end of a line, or at the start of the next, is one
		// row separator, not two.
		row := d.rows[len(d.rows)-1]
		if len(row) == 0 && d.lastSep != 0 && d.lastSep != t.ch {
			d.lastSep = 0
			return nil
		}
		d.lastSep = t.ch
		if len(d.rows) >= MaxHeight+1 {
			return errorAt(ErrTooLarge, t.src, "board higher than %d rows", MaxHeight)
		}
		d.rows = append(d.rows, nil)
		return nil
	case '\t':
		// A tab advances to the next multiple of eight columns.
		row := d.rows[len(d.rows)-1]
		for n := 8 - len(row)%8; n > 0; n-- {
			if err := d.emit(square{' ', t.src}); err != nil {
				return err
			}
		}
		return nil
	case '-', '_':
		t.ch = ' '
	case '#', '@', '+', '$', '*', '.', ' ':
	default:
		if t.ch == 0 || t.ch < ' ' || t.ch > '~' {
			return errorAt(ErrUnknownChar, t.src, "unknown character in a board row")
		}
		return errorAt(ErrUnknownChar, t.src, "unknown character %q in a board row", t.ch)
	}
	d.lastSep = 0
	row := &d.rows[len(d.rows)-1]
	if len(*row) >= MaxWidth {
		return errorAt(ErrTooLarge, t.src, "board wider than %d columns", MaxWidth)
	}
	*row = append(*row, t)
	return nil
}

// buildLevel decodes and validates the board rows of one level.
func (p *parser) buildLevel(lines []ref) (*Level, *ParseError) {
	rows, err := p.decodeBoard(lines)
	if err != nil {
		return nil, err
	}
	first := pos{lines[0].line(), 1}
	// Trim blank rows (a row of only floor after RLE expansion) at the
	// edges and the blank columns on the left, so Width and Height are the
	// board's own.
	for len(rows) > 0 && blankRow(rows[0]) {
		rows = rows[1:]
	}
	for len(rows) > 0 && blankRow(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	if len(rows) == 0 {
		return nil, errorAt(ErrEmpty, first, "board has no squares")
	}
	left := MaxWidth
	width := 0
	for k, r := range rows {
		if blankRow(r) {
			// XSB cannot write an empty row inside a board: a blank line
			// ends the board.
			p := first
			if len(r) > 0 {
				p = r[0].src
			}
			return nil, errorAt(ErrBadRLE, p, "row %d of the board is empty", k+1)
		}
		r = trimRight(r)
		rows[k] = r
		lead := 0
		for lead < len(r) && r[lead].ch == ' ' {
			lead++
		}
		if lead < len(r) {
			left = min(left, lead)
		}
		width = max(width, len(r))
	}
	if len(rows) > MaxHeight {
		return nil, errorAt(ErrTooLarge, rows[MaxHeight][0].src, "board higher than %d rows", MaxHeight)
	}
	l := &Level{Line: first.line, width: width - left, height: len(rows), player: -1}
	l.cells = make([]Cell, l.width*l.height)
	srcOf := func(i int) pos {
		r := rows[i/l.width]
		x := i%l.width + left
		if x < len(r) {
			return r[x].src
		}
		// Past the end of the written row: one column after its last.
		if len(r) == 0 {
			return pos{first.line + i/l.width, x + 1}
		}
		p := r[len(r)-1].src
		return pos{p.line, p.col + x - len(r) + 1}
	}
	boxes, goals := 0, 0
	for y, r := range rows {
		for x := left; x < len(r); x++ {
			i := y*l.width + x - left
			var c Cell
			switch r[x].ch {
			case '#':
				c = Wall
			case '@':
				c = Player
			case '+':
				c = Player | Goal
			case '$':
				c = Box
			case '*':
				c = Box | Goal
			case '.':
				c = Goal
			}
			if c.Has(Player) {
				if l.player >= 0 {
					return nil, errorAt(ErrTwoPlayers, r[x].src, "a second player (the first is at line %d, column %d)", srcOf(l.player).line, srcOf(l.player).col)
				}
				l.player = i
			}
			if c.Has(Box) {
				boxes++
			}
			if c.Has(Goal) {
				goals++
			}
			l.cells[i] = c
		}
	}
	switch {
	case l.player < 0:
		return nil, errorAt(ErrNoPlayer, first, "the board has no player ('@' or '+')")
	case boxes == 0:
		return nil, errorAt(ErrNoBoxes, first, "the board has no boxes")
	case boxes != goals:
		return nil, errorAt(ErrBoxesGoals, first, "the board has %d boxes and %d goals", boxes, goals)
	}
	if i := l.escape(); i >= 0 {
		return nil, errorAt(ErrOpenBorder, srcOf(i), "the player can walk off the board here")
	}
	return l, nil
}

func blankRow(r []square) bool {
	for _, s := range r {
		if s.ch != ' ' {
			return false
		}
	}
	return true
}

func trimRight(r []square) []square {
	for len(r) > 0 && r[len(r)-1].ch == ' ' {
		r = r[:len(r)-1]
	}
	return r
}

// escape returns a square on the board's edge that the player reaches
// walking over non-wall squares (boxes do not stop it: they may be pushed
// away), or -1 when the walls enclose the player.
func (l *Level) escape() int {
	seen := make([]bool, len(l.cells))
	stack := []int{l.player}
	seen[l.player] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%l.width, i/l.width
		if x == 0 || y == 0 || x == l.width-1 || y == l.height-1 {
			return i
		}
		for _, j := range [4]int{i - 1, i + 1, i - l.width, i + l.width} {
			if !seen[j] && l.cells[j] != Wall {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	return -1
}
