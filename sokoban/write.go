package sokoban

import (
	"strconv"
	"strings"
)

// char returns the XSB character of a cell; floor is ' '.
func (c Cell) char() byte {
	switch {
	case c.Has(Wall):
		return '#'
	case c.Has(Player | Goal):
		return '+'
	case c.Has(Player):
		return '@'
	case c.Has(Box | Goal):
		return '*'
	case c.Has(Box):
		return '$'
	case c.Has(Goal):
		return '.'
	}
	return ' '
}

func (l *Level) row(y int) []byte {
	r := make([]byte, l.width)
	for x := range r {
		r[x] = l.cells[y*l.width+x].char()
	}
	return []byte(strings.TrimRight(string(r), " "))
}

// XSB returns the board in canonical XSB: one line per row ending in "\n",
// ' ' for floor, no trailing blanks.
func (l *Level) XSB() string {
	var b strings.Builder
	for y := range l.height {
		b.Write(l.row(y))
		b.WriteByte('\n')
	}
	return b.String()
}

// RLE returns the board run-length encoded on one line: '-' for floor, a
// count before each run of two or more equal characters, and '|' between
// rows. Parse reads it back to the same board.
func (l *Level) RLE() string {
	var b strings.Builder
	for y := range l.height {
		if y > 0 {
			b.WriteByte('|')
		}
		r := l.row(y)
		for i := 0; i < len(r); {
			j := i
			for j < len(r) && r[j] == r[i] {
				j++
			}
			if j-i > 1 {
				b.WriteString(strconv.Itoa(j - i))
			}
			c := r[i]
			if c == ' ' {
				c = '-'
			}
			b.WriteByte(c)
			i = j
		}
	}
	return b.String()
}
