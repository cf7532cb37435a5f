package render

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"math"
)

// canvas is a picture that paints take coverage-weighted colours on.
type canvas interface {
	blend(x, y int, c color.RGBA, cover float64)
}

// rgbaCanvas blends onto an RGBA image.
type rgbaCanvas struct{ *image.RGBA }

func (c rgbaCanvas) blend(x, y int, col color.RGBA, cover float64) {
	i := c.PixOffset(x, y)
	p := c.Pix[i : i+4 : i+4]
	mix := func(dst, src uint8) uint8 { return uint8(math.Round(float64(src)*cover + float64(dst)*(1-cover))) }
	p[0], p[1], p[2], p[3] = mix(p[0], col.R), mix(p[1], col.G), mix(p[2], col.B), mix(p[3], col.A)
}

// paletteCanvas sets palette indexes: it is drawn with one sample per
// pixel, so coverage is 0 or 1.
type paletteCanvas struct {
	*image.Paletted
	index map[color.RGBA]uint8
}

func (c paletteCanvas) blend(x, y int, col color.RGBA, cover float64) {
	if cover >= 0.5 {
		c.SetColorIndex(x, y, c.index[col])
	}
}

// fill paints p on the tile whose top left pixel is (ox, oy), sampling
// each pixel n x n times.
func fill(dst canvas, ox, oy, tile, n int, p paint) {
	x0, y0, x1, y1 := p.shape.bounds()
	px0, py0 := int(math.Floor(x0*float64(tile))), int(math.Floor(y0*float64(tile)))
	px1, py1 := int(math.Ceil(x1*float64(tile))), int(math.Ceil(y1*float64(tile)))
	px0, py0, px1, py1 = max(px0, 0), max(py0, 0), min(px1, tile), min(py1, tile)
	step := 1 / float64(n*tile)
	for py := py0; py < py1; py++ {
		for px := px0; px < px1; px++ {
			hits := 0
			for sy := range n {
				for sx := range n {
					x := float64(px)/float64(tile) + (float64(sx)+0.5)*step
					y := float64(py)/float64(tile) + (float64(sy)+0.5)*step
					if p.shape.contains(x, y) {
						hits++
					}
				}
			}
			if hits > 0 {
				dst.blend(ox+px, oy+py, p.color, float64(hits)/float64(n*n))
			}
		}
	}
}

// drawCell paints cell i of b with what pos has there.
func (t Theme) drawCell(dst canvas, b *Board, pos Position, i, n int) {
	ox, oy := (i%b.Width)*t.Tile, (i/b.Width)*t.Tile
	for _, p := range t.floorLayers(b, i) {
		fill(dst, ox, oy, t.Tile, n, p)
	}
	for _, p := range t.pieceLayers(b, i, pos.at(i)) {
		fill(dst, ox, oy, t.Tile, n, p)
	}
}

// antialias is the samples per pixel side of PNG pictures.
const antialias = 4

// Image draws pos on b, antialiased.
func (t Theme) Image(b *Board, pos Position) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, b.Width*t.Tile, b.Height*t.Tile))
	bg := t.Background
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = bg.R, bg.G, bg.B, bg.A
	}
	for i := range b.Width * b.Height {
		t.drawCell(rgbaCanvas{img}, b, pos, i, antialias)
	}
	return img
}

// PNG writes pos on b as a PNG picture.
func (t Theme) PNG(w io.Writer, b *Board, pos Position) error {
	if err := t.check(); err != nil {
		return err
	}
	return png.Encode(w, t.Image(b, pos))
}

// Animation says how a solution is animated.
type Animation struct {
	// Step is the time per step, in hundredths of a second (GIF's unit).
	Step int
	// Hold is how long the last position stays before the animation
	// starts again, in hundredths of a second.
	Hold int
}

// check refuses an animation that cannot be made.
func (a Animation) check(positions []Position) error {
	if len(positions) == 0 {
		return fmt.Errorf("render: no positions to animate")
	}
	if a.Step <= 0 || a.Hold < 0 {
		return fmt.Errorf("render: step %d and hold %d: the step must be positive and the hold not negative", a.Step, a.Hold)
	}
	return nil
}

// DefaultAnimation shows eight steps a second and holds the solved
// position for two seconds.
var DefaultAnimation = Animation{Step: 12, Hold: 200}

// GIF writes an animated GIF of positions (Positions' output), looping.
// Frames after the first cover only the squares that changed.
func (t Theme) GIF(w io.Writer, b *Board, positions []Position, a Animation) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := a.check(positions); err != nil {
		return err
	}
	pal := t.palette()
	index := make(map[color.RGBA]uint8, len(pal))
	for k := len(pal) - 1; k >= 0; k-- {
		index[pal[k].(color.RGBA)] = uint8(k)
	}
	full := image.Rect(0, 0, b.Width*t.Tile, b.Height*t.Tile)
	frame := func(r image.Rectangle, pos Position) *image.Paletted {
		img := image.NewPaletted(r, pal)
		for y := r.Min.Y / t.Tile; y < r.Max.Y/t.Tile; y++ {
			for x := r.Min.X / t.Tile; x < r.Max.X/t.Tile; x++ {
				t.drawCell(paletteCanvas{img, index}, b, pos, y*b.Width+x, 1)
			}
		}
		return img
	}
	anim := &gif.GIF{Config: image.Config{ColorModel: pal, Width: full.Dx(), Height: full.Dy()}}
	add := func(img *image.Paletted, delay int) {
		anim.Image = append(anim.Image, img)
		anim.Delay = append(anim.Delay, delay)
		anim.Disposal = append(anim.Disposal, gif.DisposalNone)
	}
	for k, pos := range positions {
		delay := a.Step
		if k == len(positions)-1 {
			delay += a.Hold
		}
		if k == 0 {
			add(frame(full, pos), delay)
			continue
		}
		r := image.Rectangle{}
		for _, c := range changed(positions[k-1], pos) {
			x, y := c%b.Width*t.Tile, c/b.Width*t.Tile
			r = r.Union(image.Rect(x, y, x+t.Tile, y+t.Tile))
		}
		if r.Empty() {
			// Nothing moved (positions not from one solution): the frame
			// still takes its step's time.
			r = image.Rect(0, 0, t.Tile, t.Tile)
		}
		add(frame(r, pos), delay)
	}
	bw := bufio.NewWriter(w)
	if err := gif.EncodeAll(bw, anim); err != nil {
		return fmt.Errorf("render: gif: %w", err)
	}
	return bw.Flush()
}

// changed lists the cells whose piece differs between two positions.
func changed(a, b Position) []int {
	cells := []int{a.Player, b.Player}
	for k := range a.Boxes {
		if a.Boxes[k] != b.Boxes[k] {
			cells = append(cells, a.Boxes[k], b.Boxes[k])
		}
	}
	return cells
}

// check refuses a theme that cannot draw.
func (t Theme) check() error {
	if t.Tile < 4 || t.Tile > 256 {
		return fmt.Errorf("render: tile size %d: want 4 to 256 pixels", t.Tile)
	}
	return nil
}
