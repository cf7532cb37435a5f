package packing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPacked counts the steps of a plan with a parking, afresh, on boxes
// placed by hand (the third goal is no step's). The plan parks a box on P, fills goal G, then moves the
// parked box on from P to goal H: once that is done P may be empty, or
// hold another box. Advance, which goes on from a known count, stops at
// the empty parking square when it starts from nothing.
func TestPacked(t *testing.T) {
	const level = "" +
		"#######\n" +
		"#@    #\n" +
		"# $$$ #\n" +
		"# . . #\n" +
		"# .   #\n" +
		"#######\n"
	b := analyze(t, level)
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	park, g, h := sq(3, 4), sq(2, 3), sq(4, 3)
	p := &Plan{Steps: []Step{{From: -1, To: park}, {From: -1, To: g}, {From: int32(park), To: h}}}
	p.lock(b)
	if diff := cmp.Diff([]int32{2, -1, -1}, p.Until); diff != "" {
		t.Fatalf("Until (-want +got):\n%s", diff)
	}
	tests := []struct {
		name    string
		boxes   []uint16
		packed  int
		advance int
	}{
		{"none", nil, 0, 0},
		{"parked", []uint16{park}, 1, 1},
		{"parked and filled", []uint16{park, g}, 2, 2},
		{"moved on", []uint16{g, h}, 3, 0},
		{"moved on, parking square filled again", []uint16{park, g, h}, 3, 2},
		{"goal missing", []uint16{h}, 0, 0},
		{"first goal missing", []uint16{park, h}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			boxAt := make([]int16, b.Squares+1)
			for i := range boxAt {
				boxAt[i] = -1
			}
			for i, s := range tt.boxes {
				boxAt[s] = int16(i)
			}
			got := struct{ Packed, Advance int }{p.Packed(boxAt), p.Advance(0, boxAt)}
			want := struct{ Packed, Advance int }{tt.packed, tt.advance}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}
