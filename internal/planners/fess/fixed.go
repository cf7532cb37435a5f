package fess

// wallFixed copies g into w with every box that can never move again
// turned into wall, until nothing changes (Festival's
// turn_fixed_boxes_into_walls, without its envelope and diagonal
// patterns): boxes in full 2x2 blocks, boxes no push can move even with
// the player anywhere, and boxes on targets that the solved position could
// never pull away. The moves and the matching then see them as walls.
func (lv *level) wallFixed(g, w, scratch grid) {
	copy(w, g)
	for {
		changed := lv.wall2x2(w)
		changed = lv.closeHolesIn(w) || changed
		changed = lv.wallImmovable(w, scratch) || changed
		changed = lv.wallCrystal(w, scratch) || changed
		if !changed {
			return
		}
	}
}

// wall2x2 walls every full 2x2 block of walls and boxes and reports
// whether it walled a box. Only the blocks around a box can change.
func (lv *level) wall2x2(g grid) bool {
	w := lv.w
	changed := false
	for _, c := range lv.cell {
		if g[c]&box == 0 {
			continue
		}
		for _, o := range lv.blocksAround(int(c)) {
			if !lv.full2x2(g, o) {
				continue
			}
			for _, x := range [4]int{o, o + 1, o + w, o + w + 1} {
				g[x] = wall
			}
			changed = true
		}
	}
	return changed
}

// blocksAround returns the top-left cells of the four 2x2 blocks that
// hold cell c.
func (lv *level) blocksAround(c int) [4]int {
	w := lv.w
	return [4]int{c - w - 1, c - w, c - 1, c}
}

// full2x2 reports whether the 2x2 block whose top-left cell is o holds
// only walls and boxes.
func (lv *level) full2x2(g grid, o int) bool {
	w := lv.w
	return g[o]&occupied != 0 && g[o+1]&occupied != 0 && g[o+w]&occupied != 0 && g[o+w+1]&occupied != 0
}

// closeHolesIn walls one empty cell, unreachable or reachable only through
// its one open side, that has walls on three sides; it reports whether it
// did (Festival's close_holes: one at a time).
func (lv *level) closeHolesIn(g grid) bool {
	for _, c := range lv.cell {
		v := g[c]
		if v != 0 && v != player {
			continue
		}
		for k := range 4 {
			if g[int(c)+lv.d4[(k+1)&3]] != wall || g[int(c)+lv.d4[(k+2)&3]] != wall || g[int(c)+lv.d4[(k+3)&3]] != wall {
				continue
			}
			if v == player && g[int(c)+lv.d4[k]]&player == 0 {
				continue
			}
			g[c] = wall
			return true
		}
	}
	return false
}

// wallImmovable walls the boxes that stay after every box that some
// push could move (the player anywhere) is taken away, repeatedly.
func (lv *level) wallImmovable(g, scratch grid) bool {
	copy(scratch, g)
	for changed := true; changed; {
		changed = false
		for _, c := range lv.cell {
			if scratch[c]&box == 0 {
				continue
			}
			for k, d := range lv.d4 {
				if scratch[int(c)+d]&occupied != 0 || scratch[int(c)-d]&occupied != 0 {
					continue
				}
				if lv.deadlockInDirection(scratch, int(c), k) {
					continue
				}
				scratch[c] &^= box
				changed = true
				break
			}
		}
	}
	changed := false
	for _, c := range lv.cell {
		if scratch[c]&box != 0 {
			g[c] = wall
			changed = true
		}
	}
	return changed
}

// wallCrystal walls the boxes on targets that, in the solved position
// with g's walls, no pull could take away (Festival's fix_crystaline).
func (lv *level) wallCrystal(g, scratch grid) bool {
	b := scratch
	for i, v := range g {
		v &^= player
		switch {
		case v == wall:
		case v&target != 0:
			v |= box
		default:
			v &^= box
		}
		b[i] = v
	}
	for removed := true; removed; {
		removed = false
		for _, c := range lv.cell {
			if b[c] != box|target {
				continue
			}
			for _, d := range lv.d4 {
				if b[int(c)+d]&occupied == 0 && b[int(c)+2*d]&occupied == 0 {
					b[c] &^= box
					removed = true
					break
				}
			}
		}
	}
	fixed := false
	for _, c := range lv.cell {
		if b[c]&box != 0 && g[c]&box != 0 {
			g[c] = wall
			fixed = true
		}
	}
	return fixed
}
