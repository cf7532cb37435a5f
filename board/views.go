package board

import "slices"

// This file offers read-only views of a Board's analysis for callers that
// draw a level or reason about its rooms, rather than search it.

// Gate reports whether a box on square sq would cut the player's floor in
// two: two of sq's floor neighbours then lie in different regions (sq is an
// articulation point of the floor). It reuses the side labels computed for
// the push distances.
func (b *Board) Gate(sq uint16) bool {
	if int(sq) >= b.Squares {
		return false
	}
	first := uint8(0xFF)
	for d := 0; d < 4; d++ {
		lbl := b.SideRegion[int(sq)*4+d]
		switch {
		case lbl == 0xFF:
		case first == 0xFF:
			first = lbl
		case lbl != first:
			return true
		}
	}
	return false
}

// tunnelAxis returns 1 for a square walled left and right (a tunnel along
// the columns), 2 for one walled above and below (along the rows), 0
// otherwise. A square walled on three sides is a dead end, not a tunnel.
func (b *Board) tunnelAxis(sq uint16) int {
	wall := b.Wall()
	l, u, r, d := b.Nbr[int(sq)*4], b.Nbr[int(sq)*4+1], b.Nbr[int(sq)*4+2], b.Nbr[int(sq)*4+3]
	switch {
	case l == wall && r == wall && (u != wall && d != wall):
		return 1
	case u == wall && d == wall && (l != wall && r != wall):
		return 2
	}
	return 0
}

// Tunnels returns the board's tunnels: maximal runs of adjacent squares
// walled on two opposite sides, each in order along its axis (top to bottom
// or left to right), the runs in row-major order of their first square.
func (b *Board) Tunnels() [][]uint16 {
	var out [][]uint16
	seen := make([]bool, b.Squares)
	for sq := uint16(0); int(sq) < b.Squares; sq++ {
		axis := b.tunnelAxis(sq)
		if axis == 0 || seen[sq] {
			continue
		}
		back, fwd := 1, 3 // up, down
		if axis == 2 {
			back, fwd = 0, 2 // left, right
		}
		// Row-major order reaches a run's first square first, so the run
		// only extends forward; the check backward keeps that true.
		if p := b.Nbr[int(sq)*4+back]; p != b.Wall() && b.tunnelAxis(p) == axis {
			continue
		}
		run := []uint16{}
		for cur := sq; cur != b.Wall() && b.tunnelAxis(cur) == axis; cur = b.Nbr[int(cur)*4+fwd] {
			seen[cur] = true
			run = append(run, cur)
		}
		out = append(out, run)
	}
	return out
}

// Room is a connected area of floor bounded by walls and tunnel squares:
// doors through a wall are one-square tunnels, so rooms are what a player
// would call rooms. (Gate squares do not bound rooms: the square in front
// of a door is usually one, and it belongs to the room.)
type Room struct {
	// Squares are the room's squares, ascending (row-major).
	Squares []uint16
	// Goals are the goal squares among them.
	Goals []uint16
	// Entrances are the tunnel squares next to the room, ascending.
	Entrances []uint16
}

// GoalRooms returns the rooms that hold at least one goal, in row-major
// order of their first square. A board without tunnels is one room.
func (b *Board) GoalRooms() []Room {
	n := b.Squares
	border := make([]bool, n)
	for sq := uint16(0); int(sq) < n; sq++ {
		border[sq] = b.tunnelAxis(sq) != 0
	}
	room := make([]int32, n)
	for i := range room {
		room[i] = -1
	}
	var out []Room
	var stack []uint16
	for start := uint16(0); int(start) < n; start++ {
		if border[start] || room[start] >= 0 {
			continue
		}
		id := int32(len(out))
		r := Room{}
		var entrances []uint16
		room[start] = id
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			sq := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			r.Squares = append(r.Squares, sq)
			if b.GoalIndex[sq] >= 0 {
				r.Goals = append(r.Goals, sq)
			}
			for d := 0; d < 4; d++ {
				nb := b.Nbr[int(sq)*4+d]
				switch {
				case nb == b.Wall():
				case border[nb]:
					entrances = append(entrances, nb)
				case room[nb] < 0:
					room[nb] = id
					stack = append(stack, nb)
				}
			}
		}
		slices.Sort(r.Squares)
		slices.Sort(r.Goals)
		slices.Sort(entrances)
		r.Entrances = slices.Compact(entrances)
		out = append(out, r)
	}
	goalRooms := out[:0]
	for _, r := range out {
		if len(r.Goals) > 0 {
			goalRooms = append(goalRooms, r)
		}
	}
	return goalRooms
}
