package fess

// maxCorralZones bounds the regions the corral detection looks at; with
// more it finds no corral (Festival's MAX_CORRALS_NUM).
const maxCorralZones = 70

// corrals finds PI-corrals (Festival's detect_corral): a region the
// player cannot enter, whose fence boxes the player can push only into
// it, and all those pushes from where the player stands. Some box of such
// a corral must move before any other box can be of use, so the moves of
// a position with one are those of the corral's fence boxes.
type corrals struct {
	lv    *level
	zone  []int32 // region of each free cell, -1 for the others
	zones int
	// own is the player's region.
	own        int32
	candidates []bool
	used       []bool
	in         []bool // the corral
	fence      grid   // the corral's fence: see fenceOf
	touches    []bool // touches[i*zones+j]: a box touches both regions
	stack      []int32
}

func newCorrals(lv *level) *corrals {
	n := len(lv.start)
	return &corrals{lv: lv, zone: make([]int32, n), in: make([]bool, n), fence: make(grid, n),
		candidates: make([]bool, maxCorralZones), used: make([]bool, maxCorralZones),
		touches: make([]bool, maxCorralZones*maxCorralZones)}
}

// detect reports whether g has a PI-corral and, if so, marks in options
// the boxes the player can push into it.
func (cr *corrals) detect(g grid, options []bool) bool {
	cr.candidatesOf(g)
	if cr.zones >= maxCorralZones {
		return false
	}
	for i := range cr.zones {
		if !cr.candidates[i] {
			continue
		}
		if !cr.start(g, int32(i), int32(i)) {
			continue
		}
		if cr.expand(g) {
			cr.options(g, options)
			return true
		}
	}
	cr.touching(g)
	for i := range cr.zones {
		if int32(i) == cr.own {
			continue
		}
		for j := i + 1; j < cr.zones; j++ {
			if int32(j) == cr.own || !cr.candidates[i] && !cr.candidates[j] || !cr.touches[i*cr.zones+j] {
				continue
			}
			if !cr.start(g, int32(i), int32(j)) {
				continue
			}
			if cr.expand(g) {
				cr.options(g, options)
				return true
			}
		}
	}
	return false
}

// candidatesOf labels the regions of g and marks those the player could
// push a box into from its own region.
func (cr *corrals) candidatesOf(g grid) {
	lv := cr.lv
	for i := range cr.zone {
		cr.zone[i] = -1
	}
	cr.zones = 0
	for _, c := range lv.cell {
		if g[c]&occupied != 0 || cr.zone[c] >= 0 {
			continue
		}
		id := int32(cr.zones)
		cr.zones++
		cr.zone[c] = id
		cr.stack = append(cr.stack[:0], c)
		for len(cr.stack) > 0 {
			x := int(cr.stack[len(cr.stack)-1])
			cr.stack = cr.stack[:len(cr.stack)-1]
			for _, d := range lv.d4 {
				if y := x + d; g[y]&occupied == 0 && cr.zone[y] < 0 {
					cr.zone[y] = id
					cr.stack = append(cr.stack, int32(y))
				}
			}
		}
	}
	if cr.zones >= maxCorralZones {
		return
	}
	cr.own = -1
	for _, c := range lv.cell {
		if g[c]&player != 0 {
			cr.own = cr.zone[c]
			break
		}
	}
	clear(cr.candidates)
	for _, c := range lv.cell {
		if g[c]&box == 0 {
			continue
		}
		for _, d := range lv.d4 {
			if cr.zone[int(c)+d] == cr.own {
				if other := cr.zone[int(c)-d]; other >= 0 && other != cr.own {
					cr.candidates[other] = true
				}
			}
		}
	}
}

// start makes the corral of regions a and b and reports whether it has
// work in it: an empty target inside, or a fence box off target.
func (cr *corrals) start(g grid, a, b int32) bool {
	clear(cr.in)
	clear(cr.used)
	cr.used[a], cr.used[b] = true, true
	for _, c := range cr.lv.cell {
		if z := cr.zone[c]; z == a || z == b {
			cr.in[c] = true
		}
	}
	cr.fenceOf(g)
	for _, c := range cr.lv.cell {
		if cr.in[c] && cr.fence[c] == target|player {
			return true
		}
		if cr.fence[c] == box {
			return true
		}
	}
	return false
}

// fenceOf sets fence to g without boxes and player, the corral marked as
// the player's, and the boxes of g next to the corral (of eight).
func (cr *corrals) fenceOf(g grid) {
	lv := cr.lv
	for i, v := range g {
		cr.fence[i] = v &^ (box | player)
	}
	for _, c := range lv.cell {
		if !cr.in[c] {
			continue
		}
		cr.fence[c] |= player
		for _, d := range lv.d8 {
			if g[int(c)+d]&box != 0 {
				cr.fence[int(c)+d] |= box
			}
		}
	}
}

// intoCorral reports whether the fence box between pusher and dest can be
// pushed from outside the corral into it.
func (cr *corrals) intoCorral(pusher, dest, k int) bool {
	f := cr.fence
	if f[pusher] == wall || f[dest]&occupied != 0 || cr.in[pusher] || !cr.in[dest] {
		return false
	}
	return !cr.lv.deadlockInDirection(f, (pusher+dest)/2, k)
}

// asideCorral reports whether the fence box between pusher and dest can be
// pushed with both ends outside the corral.
func (cr *corrals) asideCorral(pusher, dest, k int) bool {
	f := cr.fence
	if f[pusher]&occupied != 0 || f[dest]&occupied != 0 || cr.in[pusher] || cr.in[dest] {
		return false
	}
	return !cr.lv.deadlockInDirection(f, (pusher+dest)/2, k)
}

// expand grows the corral by the regions a fence box can be pushed from
// or into, then reports whether it is a PI-corral.
func (cr *corrals) expand(g grid) bool {
	for {
		cr.fenceOf(g)
		z, ok := cr.grow()
		if !ok {
			break
		}
		cr.used[z] = true
		for _, c := range cr.lv.cell {
			if cr.zone[c] == z {
				cr.in[c] = true
			}
		}
	}
	if cr.pushOut() {
		return false
	}
	return cr.allFromPlayer(g)
}

// grow returns a region to add to the corral: one a fence box on its
// edge can be pushed from into the corral, or pushed into from beside it.
func (cr *corrals) grow() (int32, bool) {
	lv := cr.lv
	f := cr.fence
	for _, c := range lv.cell {
		if f[c]&box == 0 || !cr.onEdge(int(c)) {
			continue
		}
		for k, d := range lv.d4 {
			// The player pushes from c+d towards c-d (direction k^2).
			pusher, dest := int(c)+d, int(c)-d
			inside := cr.intoCorral(pusher, dest, k^2) && f[pusher]&occupied == 0
			aside := cr.asideCorral(pusher, dest, k^2)
			if !inside && !aside {
				continue
			}
			if inside {
				if z := cr.zone[pusher]; z >= 0 && z != cr.own && !cr.used[z] {
					return z, true
				}
			}
			if aside {
				if z := cr.zone[dest]; z >= 0 && z != cr.own && !cr.used[z] {
					return z, true
				}
			}
		}
	}
	return 0, false
}

// onEdge reports whether the box on c touches the corral and a free cell
// outside it.
func (cr *corrals) onEdge(c int) bool {
	in, out := false, false
	for _, d := range cr.lv.d4 {
		if cr.in[c+d] {
			in = true
		}
		if cr.fence[c+d]&occupied == 0 && !cr.in[c+d] {
			out = true
		}
	}
	return in && out
}

// pushOut reports whether some fence box can be pushed with both ends
// outside the corral.
func (cr *corrals) pushOut() bool {
	lv := cr.lv
	f := cr.fence
	for _, c := range lv.cell {
		if f[c]&box == 0 {
			continue
		}
		for k, d := range lv.d4 {
			pusher, dest := int(c)+d, int(c)-d
			if f[pusher]&occupied != 0 || f[dest]&occupied != 0 {
				continue
			}
			if lv.deadlockInDirection(f, int(c), k^2) {
				continue
			}
			if !cr.in[pusher] && !cr.in[dest] {
				return true
			}
		}
	}
	return false
}

// allFromPlayer reports whether every push of a fence box into the corral
// is from a square the player reaches in g.
func (cr *corrals) allFromPlayer(g grid) bool {
	lv := cr.lv
	f := cr.fence
	for _, c := range lv.cell {
		if f[c]&box == 0 {
			continue
		}
		for k, d := range lv.d4 {
			pusher, dest := int(c)+d, int(c)-d
			if !cr.intoCorral(pusher, dest, k^2) || f[pusher]&occupied != 0 {
				continue
			}
			if g[pusher]&player == 0 {
				return false
			}
		}
	}
	return true
}

// options marks the fence boxes the player can push into the corral now.
func (cr *corrals) options(g grid, options []bool) {
	lv := cr.lv
	cr.fenceOf(g)
	clear(options)
	for _, c := range lv.cell {
		if cr.fence[c]&box == 0 {
			continue
		}
		for k, d := range lv.d4 {
			pusher, dest := int(c)+d, int(c)-d
			if cr.intoCorral(pusher, dest, k^2) && g[pusher]&player != 0 {
				options[c] = true
			}
		}
	}
}

// touching sets touches for the pairs of regions a box touches both of.
func (cr *corrals) touching(g grid) {
	lv := cr.lv
	clear(cr.touches)
	for _, c := range lv.cell {
		if g[c]&box == 0 {
			continue
		}
		for _, d := range lv.d4 {
			for _, e := range lv.d4 {
				z1, z2 := cr.zone[int(c)+d], cr.zone[int(c)+e]
				if z1 >= 0 && z2 >= 0 {
					cr.touches[int(z1)*cr.zones+int(z2)] = true
				}
			}
		}
	}
}
