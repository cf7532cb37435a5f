package engine

// Player reachability: the expanded position's region, with the boxes next
// to it, and children's normalised player squares, found from the parent's
// region where the push leaves it intact.

// reach marks the squares the player reaches from sq with the current
// generation stamp, marks the boxes next to them in boxMark, and returns the
// smallest reachable square (the normalised player square).
func (s *searcher) reach(sq uint16) uint16 {
	gen := s.nextGen()
	stamp, boxAt, nbr, q, boxMark := s.stamp, s.boxAt, s.nbr, s.queue, s.boxMark
	stamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if stamp[m] == gen {
				continue
			}
			if v := boxAt[m]; v == -1 {
				stamp[m] = gen
				q[tail] = m
				tail++
				if m < low {
					low = m
				}
			} else if v >= 0 {
				boxMark[m] = gen
			}
		}
	}
	return low
}

// childReach returns the normalised player square of the region around sq,
// using the child stamps so the expanded state's region stays marked.
func (s *searcher) childReach(sq uint16) uint16 {
	gen := s.nextGen()
	stamp, boxAt, nbr, q := s.cstamp, s.boxAt, s.nbr, s.queue
	stamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if stamp[m] == gen {
				continue
			}
			if boxAt[m] == -1 {
				stamp[m] = gen
				q[tail] = m
				tail++
				if m < low {
					low = m
				}
			}
		}
	}
	return low
}

func (s *searcher) nextGen() uint32 {
	s.gen++
	return s.gen
}

// genHeadroom is more generations than one expansion can use (one per
// reachability search and corral flood, a few per box).
const genHeadroom = 1 << 24

// renewGens restarts the generation counter before it could wrap, at a
// point where no stamp is in use (the start of an expansion), so the
// parent's region never loses its marks in the middle of one.
func (s *searcher) renewGens() {
	if s.gen < ^uint32(0)-genHeadroom {
		return
	}
	clear(s.stamp)
	clear(s.cstamp)
	clear(s.boxMark)
	clear(s.cmark)
	s.gen = 0
}

// childNorm returns the normalised player square after the push of a box
// from `from` to `to` in direction dir, already applied. The expanded
// state's region C (stamp pgen, normalised square pnorm) is known, and the
// child's region differs from it only around the two squares that changed:
//
//   - `from` is now free: it joins C, and so does any other region D next
//     to it (a join).
//   - `to` is now a box: if it was in C, C may be cut in two, unless `to`
//     was not C's smallest square and the free squares around `to` (its
//     ring of eight) connect all its free neighbours, so any path through
//     `to` can go around it (C stays intact).
//
// With C intact and no join, the child's region is C minus `to` plus
// `from`: no search at all. With C intact and a join, only the joining
// regions are searched. With C possibly cut and no join, a depth-first
// search from `from` heads for C's smallest square (up and left first) and
// stops when it gets there. Otherwise the whole region is searched.
func (s *searcher) childNorm(from, to uint16, dir uint8, pgen uint32, pnorm uint16) uint16 {
	boxAt, stamp := s.boxAt, s.stamp
	p1 := s.nbr[int(from)*4+int((dir+1)&3)]
	p2 := s.nbr[int(from)*4+int((dir+3)&3)]
	join := (boxAt[p1] == -1 && stamp[p1] != pgen) || (boxAt[p2] == -1 && stamp[p2] != pgen)
	intact := true
	if stamp[to] == pgen {
		if to == pnorm {
			intact = false
		} else {
			r := s.ring[int(to)*8 : int(to)*8+8 : int(to)*8+8]
			var mask uint8
			for k, q := range r {
				if boxAt[q] == -1 {
					mask |= 1 << k
				}
			}
			intact = s.ringOK[mask]
		}
	}
	switch {
	case intact && !join:
		s.fastNorm++
		return min(from, pnorm)
	case intact:
		s.joinNorm++
		return min(s.outside(from, pgen), pnorm)
	case !join:
		s.seekNorm++
		return s.seek(from, pnorm)
	}
	s.slowNorm++
	return s.childReach(from)
}

// outside searches the free squares connected to sq outside the region
// stamped pgen and returns the smallest.
func (s *searcher) outside(sq uint16, pgen uint32) uint16 {
	gen := s.nextGen()
	stamp, cstamp, boxAt, nbr, q := s.stamp, s.cstamp, s.boxAt, s.nbr, s.queue
	cstamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if cstamp[m] == gen || boxAt[m] != -1 || stamp[m] == pgen {
				continue
			}
			cstamp[m] = gen
			q[tail] = m
			tail++
			if m < low {
				low = m
			}
		}
	}
	return low
}

// seek searches depth-first from sq for target, up and left first since
// target is the smallest square of the region it was in. It returns
// min(sq, target) when it gets there, else the smallest square of sq's
// region.
func (s *searcher) seek(sq, target uint16) uint16 {
	gen := s.nextGen()
	cstamp, boxAt, nbr, st := s.cstamp, s.boxAt, s.nbr, s.queue
	cstamp[sq] = gen
	st[0] = sq
	top := 1
	low := sq
	for top > 0 {
		top--
		c := int(st[top]) * 4
		// Push right and down first so that up and left come out first.
		for _, d := range [4]int{2, 3, 0, 1} {
			m := nbr[c+d]
			if cstamp[m] == gen || boxAt[m] != -1 {
				continue
			}
			if m == target {
				return min(sq, target)
			}
			cstamp[m] = gen
			st[top] = m
			top++
			if m < low {
				low = m
			}
		}
	}
	return low
}

// initRing computes the ring of eight squares around every square and the
// table saying which free-square patterns on a ring keep all free
// orthogonal neighbours (even bits) in one cyclic run of free squares.
func (s *searcher) initRing() {
	b := s.b
	n := b.Squares
	s.ring = make([]uint16, (n+1)*8)
	offs := [8][2]int{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}
	for sq := 0; sq <= n; sq++ {
		for k, o := range offs {
			s.ring[sq*8+k] = uint16(n)
			if sq == n {
				continue
			}
			x, y := b.XY(uint16(sq))
			x, y = x+o[0], y+o[1]
			if x < 0 || y < 0 || x >= b.Width || y >= b.Height {
				continue
			}
			if q := b.SquareOf[y*b.Width+x]; q >= 0 {
				s.ring[sq*8+k] = uint16(q)
			}
		}
	}
	for m := 0; m < 256; m++ {
		// Label the cyclic runs of set bits; the orthogonal set bits must
		// share one label.
		if m == 255 {
			s.ringOK[m] = true
			continue
		}
		// Start right after a clear bit so no run wraps.
		start := 0
		for m&(1<<start) != 0 {
			start++
		}
		runs, label := 0, -1
		ok := true
		inRun := false
		for i := 1; i <= 8; i++ {
			k := (start + i) % 8
			if m&(1<<k) == 0 {
				inRun = false
				continue
			}
			if !inRun {
				runs++
				inRun = true
			}
			if k%2 == 0 {
				if label == -1 {
					label = runs
				} else if label != runs {
					ok = false
				}
			}
		}
		s.ringOK[m] = ok
	}
}
