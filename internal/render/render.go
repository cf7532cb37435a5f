// Package render draws Sokoban levels and solutions: PNG and SVG pictures
// of a position, and animations of a solution as GIF or as SVG (SMIL). The
// web app served by `sokod serve` draws with the same Theme, which it reads
// as JSON (Theme.JSON), so the pictures and the app look alike.
//
// A picture is made of tiles of Theme.Tile pixels: walls, the floor inside
// the walls, goals, boxes (another colour on a goal) and the player. The
// floor outside the walls is left as background.
package render

import (
	"encoding/json"
	"fmt"
	"image/color"

	"github.com/sokod/sokod/sokoban"
)

// Theme is the look of a picture: the tile size, the colours, and the
// shapes' proportions as fractions of a tile.
type Theme struct {
	// Tile is a square's size in pixels.
	Tile int `json:"tile"`
	// Colours of the background (outside the walls), the floor, walls
	// (face and edge), goals, boxes, boxes on goals and the player.
	Background color.RGBA `json:"-"`
	Floor      color.RGBA `json:"-"`
	Wall       color.RGBA `json:"-"`
	WallEdge   color.RGBA `json:"-"`
	Goal       color.RGBA `json:"-"`
	Box        color.RGBA `json:"-"`
	BoxEdge    color.RGBA `json:"-"`
	BoxOnGoal  color.RGBA `json:"-"`
	GoalEdge   color.RGBA `json:"-"`
	Player     color.RGBA `json:"-"`
	PlayerEdge color.RGBA `json:"-"`
	// Proportions, as fractions of a tile: the goal mark's radius, a box's
	// inset from its tile's sides and its corner radius, the width of the
	// edges of walls, boxes and the player, and the player's radius.
	GoalRadius   float64 `json:"goalRadius"`
	BoxInset     float64 `json:"boxInset"`
	BoxRadius    float64 `json:"boxRadius"`
	Edge         float64 `json:"edge"`
	PlayerRadius float64 `json:"playerRadius"`
}

// DefaultTheme is the look of the web app and of `sokod render`.
func DefaultTheme() Theme {
	return Theme{
		Tile:       32,
		Background: rgb(0x2b, 0x2d, 0x33),
		Floor:      rgb(0xe4, 0xdc, 0xc8),
		Wall:       rgb(0x7a, 0x5c, 0x45),
		WallEdge:   rgb(0x52, 0x3c, 0x2c),
		Goal:       rgb(0x2f, 0x80, 0xc8),
		Box:        rgb(0xd8, 0x9a, 0x3a),
		BoxEdge:    rgb(0x8a, 0x5a, 0x12),
		BoxOnGoal:  rgb(0x4c, 0xb0, 0x68),
		GoalEdge:   rgb(0x23, 0x70, 0x3a),
		Player:     rgb(0xd9, 0x4a, 0x3a),
		PlayerEdge: rgb(0x8f, 0x2a, 0x1f),

		GoalRadius:   0.18,
		BoxInset:     0.1,
		BoxRadius:    0.14,
		Edge:         0.07,
		PlayerRadius: 0.3,
	}
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 0xff} }

// hex is c as CSS writes it.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// JSON is the theme as the web app reads it: the tile size, the
// proportions, and the colours as CSS "#rrggbb" strings under "colors".
func (t Theme) JSON() ([]byte, error) {
	type jsonTheme struct {
		Theme
		Colors map[string]string `json:"colors"`
	}
	return json.Marshal(jsonTheme{Theme: t, Colors: map[string]string{
		"background": hex(t.Background), "floor": hex(t.Floor), "wall": hex(t.Wall), "wallEdge": hex(t.WallEdge),
		"goal": hex(t.Goal), "box": hex(t.Box), "boxEdge": hex(t.BoxEdge), "boxOnGoal": hex(t.BoxOnGoal),
		"goalEdge": hex(t.GoalEdge), "player": hex(t.Player), "playerEdge": hex(t.PlayerEdge),
	}})
}

// Board is the fixed part of a level: walls, goals, and which squares are
// inside the walls.
type Board struct {
	Width, Height int
	wall, goal    []bool
	inside        []bool
}

// Position is the boxes and the player, as cells y*Width+x. Boxes keep
// their order through a solution's positions, so an animation can follow
// each box.
type Position struct {
	Boxes  []int
	Player int
}

// NewBoard returns l's board and its start position. The squares inside
// the walls are those the player's floor reaches, walking over boxes and
// goals.
func NewBoard(l *sokoban.Level) (*Board, Position) {
	w, h := l.Width(), l.Height()
	b := &Board{Width: w, Height: h, wall: make([]bool, w*h), goal: make([]bool, w*h), inside: make([]bool, w*h)}
	var pos Position
	for y := range h {
		for x := range w {
			c, i := l.At(x, y), y*w+x
			b.wall[i] = c.Has(sokoban.Wall)
			b.goal[i] = c.Has(sokoban.Goal)
			if c.Has(sokoban.Box) {
				pos.Boxes = append(pos.Boxes, i)
			}
		}
	}
	px, py := l.Player()
	pos.Player = py*w + px
	stack := []int{pos.Player}
	b.inside[pos.Player] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		for _, n := range [...][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
			if n[0] < 0 || n[1] < 0 || n[0] >= w || n[1] >= h {
				continue
			}
			j := n[1]*w + n[0]
			if !b.wall[j] && !b.inside[j] {
				b.inside[j] = true
				stack = append(stack, j)
			}
		}
	}
	return b, pos
}

// Positions replays sol on l and returns the positions before the first
// step and after each, len(sol)+1 of them. The solution is checked by the
// sokoban verifier first; an illegal step is its *sokoban.StepError.
func Positions(l *sokoban.Level, sol sokoban.Solution) ([]Position, error) {
	if _, err := sokoban.Replay(l, sol); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	b, pos := NewBoard(l)
	out := make([]Position, 0, len(sol)+1)
	out = append(out, pos)
	for _, st := range sol {
		next := Position{Boxes: append([]int(nil), pos.Boxes...), Player: pos.Player}
		dx, dy := st.Dir.Delta()
		to := pos.Player + dy*b.Width + dx
		if st.Push {
			for k, c := range next.Boxes {
				if c == to {
					next.Boxes[k] = to + dy*b.Width + dx
				}
			}
		}
		next.Player = to
		out = append(out, next)
		pos = next
	}
	return out, nil
}

// piece is what stands on a square.
type piece int

const (
	none piece = iota
	box
	player
)

// at returns what pos has on cell i.
func (p Position) at(i int) piece {
	if p.Player == i {
		return player
	}
	for _, c := range p.Boxes {
		if c == i {
			return box
		}
	}
	return none
}
