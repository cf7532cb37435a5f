package render

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// example is testdata/example.xsb of the repository, with its solution.
const (
	example = `; sokod example: two boxes, two goals
#######
#  .  #
# $$@ #
#  .  #
#######
`
	exampleSolution = "dlUdlluurDldR"
)

func exampleLevel(t *testing.T) (*sokoban.Level, sokoban.Solution) {
	t.Helper()
	l, err := sokoban.Parse(example)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sokoban.ParseSolution(exampleSolution)
	if err != nil {
		t.Fatal(err)
	}
	return l, sol
}

// save keeps a picture for a person to look at when SOKOD_RENDER_OUT is set.
func save(t *testing.T, name string, data []byte) {
	if dir := os.Getenv("SOKOD_RENDER_OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Error(err)
		}
	}
}

func TestPositions(t *testing.T) {
	l, sol := exampleLevel(t)
	ps, err := Positions(l, sol)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(sol)+1 {
		t.Fatalf("%d positions for %d steps", len(ps), len(sol))
	}
	cell := func(x, y int) int { return y*l.Width() + x }
	want := []Position{
		{Boxes: []int{cell(2, 2), cell(3, 2)}, Player: cell(4, 2)},
		{Boxes: []int{cell(2, 2), cell(3, 2)}, Player: cell(4, 3)},
		{Boxes: []int{cell(2, 2), cell(3, 2)}, Player: cell(3, 3)},
		{Boxes: []int{cell(2, 2), cell(3, 1)}, Player: cell(3, 2)},
	}
	if diff := cmp.Diff(want, ps[:4]); diff != "" {
		t.Errorf("first positions (-want +got):\n%s", diff)
	}
	// The boxes keep their order: the first box ends on the lower goal.
	if diff := cmp.Diff(Position{Boxes: []int{cell(3, 3), cell(3, 1)}, Player: cell(2, 3)}, ps[len(ps)-1]); diff != "" {
		t.Errorf("last position (-want +got):\n%s", diff)
	}
	if _, err := Positions(l, sokoban.Solution{{Dir: sokoban.Left}}); err == nil {
		t.Error("an illegal solution replayed")
	}
}

// tileCentre is the colour at the centre of tile (x, y).
func tileCentre(img image.Image, th Theme, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x*th.Tile+th.Tile/2, y*th.Tile+th.Tile/2)).(color.RGBA)
}

func TestPNG(t *testing.T) {
	l, _ := exampleLevel(t)
	th := DefaultTheme()
	b, pos := NewBoard(l)
	var buf bytes.Buffer
	if err := th.PNG(&buf, b, pos); err != nil {
		t.Fatal(err)
	}
	save(t, "example.png", buf.Bytes())
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got != image.Pt(7*th.Tile, 5*th.Tile) {
		t.Fatalf("size %v", got)
	}
	tests := []struct {
		name string
		x, y int
		want color.RGBA
	}{
		{"wall", 0, 0, th.Wall},
		{"floor", 1, 1, th.Floor},
		{"goal", 3, 1, th.Goal},
		{"box", 2, 2, th.Box},
		{"player", 4, 2, th.Player},
	}
	for _, tc := range tests {
		if got := tileCentre(img, th, tc.x, tc.y); got != tc.want {
			t.Errorf("%s at x %d, y %d: %v, want %v", tc.name, tc.x, tc.y, got, tc.want)
		}
	}
}

func TestOutsideIsBackground(t *testing.T) {
	l, err := sokoban.Parse("  ####\n###@ #\n#.$  #\n######\n")
	if err != nil {
		t.Fatal(err)
	}
	th := DefaultTheme()
	b, pos := NewBoard(l)
	img := th.Image(b, pos)
	if got := tileCentre(img, th, 0, 0); got != th.Background {
		t.Errorf("outside the walls: %v, want the background %v", got, th.Background)
	}
}

// exampleSolved returns the example's board and the positions of its
// solution.
func exampleSolved(t *testing.T) (*Board, []Position) {
	t.Helper()
	l, sol := exampleLevel(t)
	b, _ := NewBoard(l)
	ps, err := Positions(l, sol)
	if err != nil {
		t.Fatal(err)
	}
	return b, ps
}

func TestGIF(t *testing.T) {
	th := DefaultTheme()
	b, ps := exampleSolved(t)
	var buf bytes.Buffer
	if err := th.GIF(&buf, b, ps, DefaultAnimation); err != nil {
		t.Fatal(err)
	}
	save(t, "example.gif", buf.Bytes())
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != len(ps) {
		t.Fatalf("%d frames for %d positions", len(g.Image), len(ps))
	}
	if g.Delay[0] != DefaultAnimation.Step || g.Delay[len(g.Delay)-1] != DefaultAnimation.Step+DefaultAnimation.Hold {
		t.Errorf("delays %v", g.Delay)
	}
	// Frames are drawn over the ones before (no disposal): compose them
	// and look at the solved position.
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for k, frame := range g.Image {
		draw.Draw(canvas, frame.Bounds(), frame, frame.Bounds().Min, draw.Over)
		if k > 0 && frame.Bounds().Dx() >= g.Config.Width && frame.Bounds().Dy() >= g.Config.Height {
			t.Errorf("frame %d covers the whole board; want the squares that changed", k)
		}
	}
	for _, sq := range [][2]int{{3, 1}, {3, 3}} {
		if got := tileCentre(canvas, th, sq[0], sq[1]); got != th.BoxOnGoal {
			t.Errorf("solved box at x %d, y %d: %v, want %v", sq[0], sq[1], got, th.BoxOnGoal)
		}
	}
	if got := tileCentre(canvas, th, 2, 3); got != th.Player {
		t.Errorf("player at x 2, y 3: %v, want %v", got, th.Player)
	}
}

// svgElements parses an SVG document and returns its elements' names and
// attributes in order.
func svgElements(t *testing.T, data []byte) []xml.StartElement {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var out []xml.StartElement
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			out = append(out, se.Copy())
		}
	}
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func TestSVG(t *testing.T) {
	l, _ := exampleLevel(t)
	th := DefaultTheme()
	b, pos := NewBoard(l)
	var buf bytes.Buffer
	if err := th.SVG(&buf, b, pos); err != nil {
		t.Fatal(err)
	}
	save(t, "example.svg", buf.Bytes())
	els := svgElements(t, buf.Bytes())
	if els[0].Name.Local != "svg" || attr(els[0], "width") != "224" || attr(els[0], "height") != "160" {
		t.Fatalf("root %v", els[0])
	}
	fills := map[string]int{}
	for _, e := range els {
		fills[attr(e, "fill")]++
	}
	// Two boxes and a player, each an edge and a face; two goal marks.
	for c, n := range map[color.RGBA]int{th.Box: 2, th.BoxEdge: 2, th.Player: 1, th.PlayerEdge: 1, th.Goal: 2} {
		if fills[hex(c)] != n {
			t.Errorf("%d shapes filled %s, want %d", fills[hex(c)], hex(c), n)
		}
	}
}

func TestSVGAnimation(t *testing.T) {
	_, sol := exampleLevel(t)
	th := DefaultTheme()
	b, ps := exampleSolved(t)
	var buf bytes.Buffer
	if err := th.SVGAnimation(&buf, b, ps, DefaultAnimation); err != nil {
		t.Fatal(err)
	}
	save(t, "example-animated.svg", buf.Bytes())
	var moves, fills []xml.StartElement
	for _, e := range svgElements(t, buf.Bytes()) {
		switch {
		case e.Name.Local == "animateTransform":
			moves = append(moves, e)
		case e.Name.Local == "animate" && attr(e, "attributeName") == "fill":
			fills = append(fills, e)
		}
	}
	// Both boxes and the player move.
	if len(moves) != 3 {
		t.Fatalf("%d animateTransform elements, want 3", len(moves))
	}
	player := moves[2]
	values := strings.Split(attr(player, "values"), ";")
	if len(values) != len(sol)+1 || len(strings.Split(attr(player, "keyTimes"), ";")) != len(values) {
		t.Errorf("player: %d values, keyTimes %q; want one per position", len(values), attr(player, "keyTimes"))
	}
	// The player ends at x 2, y 3, from x 4, y 2.
	if last := values[len(values)-1]; last != "-64 32" {
		t.Errorf("player's last offset %q, want -64 32", last)
	}
	// Each box's edge and face turn green on its goal.
	if len(fills) != 4 {
		t.Errorf("%d fill animations, want 4 (edge and face of two boxes)", len(fills))
	}
	for _, f := range fills {
		if v := strings.Split(attr(f, "values"), ";"); v[len(v)-1] != hex(th.BoxOnGoal) && v[len(v)-1] != hex(th.GoalEdge) {
			t.Errorf("fill values %q: want the box to end on a goal", attr(f, "values"))
		}
	}
}

func TestThemeJSON(t *testing.T) {
	data, err := DefaultTheme().JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tile":32`, `"playerRadius":0.3`, `"boxOnGoal":"#4cb068"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("theme JSON %s lacks %s", data, want)
		}
	}
}

func TestBadArguments(t *testing.T) {
	l, _ := exampleLevel(t)
	b, pos := NewBoard(l)
	th := DefaultTheme()
	th.Tile = 1
	if err := th.PNG(io.Discard, b, pos); err == nil {
		t.Error("a 1-pixel tile drew")
	}
	if err := DefaultTheme().GIF(io.Discard, b, nil, DefaultAnimation); err == nil {
		t.Error("a GIF of no positions")
	}
	if err := DefaultTheme().SVGAnimation(io.Discard, b, []Position{pos}, Animation{}); err == nil {
		t.Error("an animation with a zero step")
	}
}
