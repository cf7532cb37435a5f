package render

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// svgWriter writes SVG elements, keeping the first write error.
type svgWriter struct {
	w   *bufio.Writer
	err error
}

func (s *svgWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

// num writes a coordinate without needless digits.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// paint writes p as an element on the tile at pixel (ox, oy), with inner
// as its content (an animation of it, say).
func (s *svgWriter) paint(ox, oy, tile int, p paint, inner string) {
	f := float64(tile)
	var name, attrs string
	switch sh := p.shape.(type) {
	case rect:
		name = "rect"
		attrs = fmt.Sprintf(`x="%s" y="%s" width="%s" height="%s"`,
			num(float64(ox)+sh.x0*f), num(float64(oy)+sh.y0*f), num((sh.x1-sh.x0)*f), num((sh.y1-sh.y0)*f))
		if sh.r > 0 {
			attrs += ` rx="` + num(sh.r*f) + `"`
		}
	case circle:
		name = "circle"
		attrs = fmt.Sprintf(`cx="%s" cy="%s" r="%s"`, num(float64(ox)+0.5*f), num(float64(oy)+0.5*f), num(sh.r*f))
	}
	if inner == "" {
		s.printf("<%s %s fill=\"%s\"/>\n", name, attrs, hex(p.color))
		return
	}
	s.printf("<%s %s fill=\"%s\">%s</%s>\n", name, attrs, hex(p.color), inner, name)
}

// svgBoard writes the svg element's start and the board's fixed part.
func (t Theme) svgBoard(s *svgWriter, b *Board) {
	w, h := b.Width*t.Tile, b.Height*t.Tile
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", w, h, w, h)
	s.printf(`<rect width="%d" height="%d" fill="%s"/>`+"\n", w, h, hex(t.Background))
	for i := range b.Width * b.Height {
		for _, p := range t.floorLayers(b, i) {
			s.paint(i%b.Width*t.Tile, i/b.Width*t.Tile, t.Tile, p, "")
		}
	}
}

// SVG writes pos on b as an SVG picture.
func (t Theme) SVG(w io.Writer, b *Board, pos Position) error {
	if err := t.check(); err != nil {
		return err
	}
	s := &svgWriter{w: bufio.NewWriter(w)}
	t.svgBoard(s, b)
	for i := range b.Width * b.Height {
		for _, p := range t.pieceLayers(b, i, pos.at(i)) {
			s.paint(i%b.Width*t.Tile, i/b.Width*t.Tile, t.Tile, p, "")
		}
	}
	s.printf("</svg>\n")
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// SVGAnimation writes an SVG picture of positions (Positions' output) that
// animates them with SMIL, looping: each box and the player is one group
// moved by a discrete animateTransform, and a box's colours change as it
// reaches and leaves goals. Browsers play it; it has no script.
func (t Theme) SVGAnimation(w io.Writer, b *Board, positions []Position, a Animation) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := a.check(positions); err != nil {
		return err
	}
	s := &svgWriter{w: bufio.NewWriter(w)}
	t.svgBoard(s, b)
	// Times in hundredths of a second; position k shows from k*Step.
	total := (len(positions)-1)*a.Step + a.Step + a.Hold
	dur := num(float64(total)/100) + "s"
	keyTime := func(k int) string { return num(float64(k*a.Step) / float64(total)) }

	// track lists, for one piece, the positions at which its cell (and, for
	// a box, its colours) change, and writes the group's animation.
	track := func(cellOf func(Position) int, layers func(cell int) []paint) {
		first := cellOf(positions[0])
		var keys, moves []string
		colours := make([][]string, len(layers(first)))
		last := -1
		for k, pos := range positions {
			c := cellOf(pos)
			if c == last {
				continue
			}
			keys = append(keys, keyTime(k))
			moves = append(moves, fmt.Sprintf("%d %d", (c%b.Width-first%b.Width)*t.Tile, (c/b.Width-first/b.Width)*t.Tile))
			for j, p := range layers(c) {
				colours[j] = append(colours[j], hex(p.color))
			}
			last = c
		}
		kt := strings.Join(keys, ";")
		s.printf("<g>\n")
		for j, p := range layers(first) {
			inner := ""
			if distinct(colours[j]) {
				inner = fmt.Sprintf(`<animate attributeName="fill" dur="%s" repeatCount="indefinite" calcMode="discrete" keyTimes="%s" values="%s"/>`,
					dur, kt, strings.Join(colours[j], ";"))
			}
			s.paint(first%b.Width*t.Tile, first/b.Width*t.Tile, t.Tile, p, inner)
		}
		if len(keys) > 1 {
			s.printf(`<animateTransform attributeName="transform" type="translate" dur="%s" repeatCount="indefinite" calcMode="discrete" keyTimes="%s" values="%s"/>`+"\n",
				dur, kt, strings.Join(moves, ";"))
		}
		s.printf("</g>\n")
	}
	for k := range positions[0].Boxes {
		track(func(p Position) int { return p.Boxes[k] }, func(c int) []paint { return t.pieceLayers(b, c, box) })
	}
	track(func(p Position) int { return p.Player }, func(c int) []paint { return t.pieceLayers(b, c, player) })
	s.printf("</svg>\n")
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// distinct reports whether vs holds more than one value.
func distinct(vs []string) bool {
	for _, v := range vs {
		if v != vs[0] {
			return true
		}
	}
	return false
}
