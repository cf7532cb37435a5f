package fess

// maxRooms bounds the rooms the room feature tracks; a board with more
// has no room feature (Festival's MAX_ROOMS).
const maxRooms = 70

// rooms are the level's rooms: maximal groups of floor covered by 2x2
// blocks of floor, joined side by side. The cells outside every room are
// corridors. The room feature counts the pairs of rooms the boxes
// disconnect (Festival's rooms.cpp).
type rooms struct {
	lv *level
	// of[c] is the room of cell c, or -1.
	of  []int32
	num int
	// base[i*num+j] is set when the player can go from room i to room j
	// on the empty board without crossing a third room.
	base []bool
	// withCorridors[r] marks room r's cells and the free cells next to
	// them.
	withCorridors [][]bool
	// Scratch.
	cur       []bool
	visited   []bool
	stamp     []uint32
	gen       uint32
	queue     []int32
	seen      []bool
	processed []bool
}

// newRooms finds lv's rooms (Festival's analyse_rooms and
// init_rooms_deadlock).
func newRooms(lv *level) *rooms {
	g := lv.empty()
	for i := range g {
		g[i] &^= target
	}
	n := len(g)
	w := lv.w
	anchor := make([]bool, n)
	for c := 0; c+w+1 < n; c++ {
		anchor[c] = g[c] == 0 && g[c+1] == 0 && g[c+w] == 0 && g[c+w+1] == 0
	}
	// A lone block is too small to be a room.
	for c := w; c+w < n; c++ {
		if anchor[c] && !anchor[c-w] && !anchor[c+1] && !anchor[c+w] && !anchor[c-1] {
			anchor[c] = false
		}
	}
	r := &rooms{lv: lv, of: make([]int32, n)}
	comp := make([]int32, n)
	for i := range comp {
		comp[i] = -1
		r.of[i] = -1
	}
	var stack []int
	for c := range n {
		if !lv.inner[c] || !anchor[c] || comp[c] >= 0 {
			continue
		}
		id := int32(r.num)
		r.num++
		comp[c] = id
		stack = append(stack[:0], c)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, d := range lv.d4 {
				if y := x + d; y >= 0 && y < n && anchor[y] && comp[y] < 0 {
					comp[y] = id
					stack = append(stack, y)
				}
			}
		}
	}
	for c := range n {
		if v := comp[c]; v >= 0 {
			r.of[c], r.of[c+1], r.of[c+w], r.of[c+w+1] = v, v, v, v
		}
	}
	// A cell shared diagonally by two blocks of different rooms belongs
	// to neither.
	for c := 0; c+w+1 < n; c++ {
		if anchor[c] == anchor[c+w+1] && anchor[c+w] == anchor[c+1] && anchor[c] != anchor[c+w] {
			r.of[c+w+1] = -1
		}
	}
	if r.num > maxRooms {
		r.num = 0
		return r
	}
	r.cur = make([]bool, r.num*r.num)
	r.visited = make([]bool, n)
	r.stamp = make([]uint32, n)
	r.seen = make([]bool, r.num)
	r.processed = make([]bool, r.num)
	r.base = make([]bool, r.num*r.num)
	r.graph(g)
	copy(r.base, r.cur)
	r.withCorridors = make([][]bool, r.num)
	for t := range r.num {
		wc := make([]bool, n)
		for c := range n {
			if r.of[c] != int32(t) {
				continue
			}
			wc[c] = true
			for _, d := range lv.d4 {
				if g[c+d]&occupied == 0 {
					wc[c+d] = true
				}
			}
		}
		r.withCorridors[t] = wc
	}
	return r
}

// graph sets cur to the room graph of position g (Festival's
// get_current_graph): rooms i and j are connected when every free part of
// room i reaches room j without entering a third room; a room without
// free cells reaches none.
func (r *rooms) graph(g grid) {
	num := r.num
	for i := range r.cur {
		r.cur[i] = true
	}
	for i := range num {
		r.cur[i*num+i] = false
	}
	clear(r.visited)
	processed := r.processed
	clear(processed)
	for _, c := range r.lv.cell {
		if g[c]&occupied != 0 || r.visited[c] {
			continue
		}
		color := r.of[c]
		if color < 0 {
			continue
		}
		processed[color] = true
		r.bfs(g, int(c), color)
		for k := range num {
			if !r.seen[k] {
				r.cur[int(color)*num+k] = false
				r.cur[k*num+int(color)] = false
			}
		}
	}
	for i := range num {
		if processed[i] {
			continue
		}
		for j := range num {
			r.cur[i*num+j] = false
			r.cur[j*num+i] = false
		}
	}
}

// bfs spreads from cell start through room color and the corridors,
// marking in seen the rooms it touches (Festival's rooms_bfs).
func (r *rooms) bfs(g grid, start int, color int32) {
	clear(r.seen)
	r.gen++
	r.visited[start] = true
	r.stamp[start] = r.gen
	r.queue = append(r.queue[:0], int32(start))
	for h := 0; h < len(r.queue); h++ {
		x := int(r.queue[h])
		for _, d := range r.lv.d4 {
			y := x + d
			if sc := r.of[y]; sc >= 0 && sc != color {
				r.seen[sc] = true
				continue
			}
			if r.stamp[y] == r.gen || r.visited[y] || g[y]&occupied != 0 {
				continue
			}
			r.stamp[y] = r.gen
			if r.of[y] == color {
				r.visited[y] = true
			}
			r.queue = append(r.queue, int32(y))
		}
	}
}

// score returns the room feature of g: the pairs of rooms connected on
// the empty board that g's boxes disconnect.
func (r *rooms) score(g grid) int32 {
	if r.num <= 1 {
		return 0
	}
	r.graph(g)
	sum := int32(0)
	for i, b := range r.base {
		if b && !r.cur[i] {
			sum++
		}
	}
	return sum / 2
}
