package render

import (
	"image/color"
	"math"
)

// shape is a region of one tile, in tile units: (0, 0) is the tile's top
// left corner, (1, 1) its bottom right.
type shape interface {
	contains(x, y float64) bool
	// bounds is the shape's bounding box.
	bounds() (x0, y0, x1, y1 float64)
}

// rect is a rounded rectangle; r 0 is a plain one.
type rect struct{ x0, y0, x1, y1, r float64 }

func (s rect) bounds() (float64, float64, float64, float64) { return s.x0, s.y0, s.x1, s.y1 }

func (s rect) contains(x, y float64) bool {
	if x < s.x0 || x > s.x1 || y < s.y0 || y > s.y1 {
		return false
	}
	// Inside the rectangle shrunk by r, or within r of it.
	dx := math.Max(0, math.Max(s.x0+s.r-x, x-(s.x1-s.r)))
	dy := math.Max(0, math.Max(s.y0+s.r-y, y-(s.y1-s.r)))
	return dx*dx+dy*dy <= s.r*s.r
}

// inset returns the rectangle a tile's sides inset by d, with corners of
// radius r.
func inset(d, r float64) rect { return rect{d, d, 1 - d, 1 - d, math.Max(r, 0)} }

// circle is a disc around the tile's centre.
type circle struct{ r float64 }

func (s circle) bounds() (float64, float64, float64, float64) {
	return 0.5 - s.r, 0.5 - s.r, 0.5 + s.r, 0.5 + s.r
}

func (s circle) contains(x, y float64) bool {
	dx, dy := x-0.5, y-0.5
	return dx*dx+dy*dy <= s.r*s.r
}

// paint is one shape filled with one colour.
type paint struct {
	shape shape
	color color.RGBA
}

// floorLayers are the fixed paints of cell i, bottom first: a wall, or
// the floor inside the walls with its goal mark; nothing outside.
func (t Theme) floorLayers(b *Board, i int) []paint {
	switch {
	case b.wall[i]:
		return []paint{{inset(0, 0), t.WallEdge}, {inset(t.Edge, 0), t.Wall}}
	case !b.inside[i]:
		return nil
	case b.goal[i]:
		return []paint{{inset(0, 0), t.Floor}, {circle{t.GoalRadius}, t.Goal}}
	}
	return []paint{{inset(0, 0), t.Floor}}
}

// pieceLayers are the paints of a box or the player on cell i, bottom
// first.
func (t Theme) pieceLayers(b *Board, i int, p piece) []paint {
	switch p {
	case box:
		edge, face := t.BoxEdge, t.Box
		if b.goal[i] {
			edge, face = t.GoalEdge, t.BoxOnGoal
		}
		return []paint{{inset(t.BoxInset, t.BoxRadius), edge}, {inset(t.BoxInset+t.Edge, t.BoxRadius-t.Edge), face}}
	case player:
		return []paint{{circle{t.PlayerRadius}, t.PlayerEdge}, {circle{t.PlayerRadius - t.Edge}, t.Player}}
	}
	return nil
}

// palette is every colour a theme paints, background first, for GIF
// frames drawn without antialiasing.
func (t Theme) palette() color.Palette {
	return color.Palette{t.Background, t.Floor, t.Wall, t.WallEdge, t.Goal, t.Box, t.BoxEdge, t.BoxOnGoal, t.GoalEdge, t.Player, t.PlayerEdge}
}
