package macro

import "github.com/sokod/sokod/board"

// Matcher finds whether boxes can each be given a distinct goal they can
// reach by pushes on an otherwise empty board, by Kuhn's augmenting paths.
// A box with no such matching is a bipartite deadlock.
//
// Reach is judged from the side of the box the player is on
// (Board.RegionDist) where the board has that table: a box the player can
// only ever push from the wrong side cannot reach a goal that Board.Dist,
// the minimum over all sides, says it can. Other boxes only take squares
// away from the player, so the lone box's view stays an over-estimate of
// what it can reach, and the test stays sound.
type Matcher struct {
	b       *board.Board
	boxOf   []int16 // box matched to goal j, -1
	visited []uint32
	vgen    uint32
}

// NewMatcher returns a matcher for board b.
func NewMatcher(b *board.Board) *Matcher {
	return &Matcher{b: b, boxOf: make([]int16, len(b.Goals)), visited: make([]uint32, len(b.Goals))}
}

// Perfect reports whether every box gets its own reachable goal when the
// player stands on square player (any square of its region).
func (m *Matcher) Perfect(boxes []uint16, player uint16) bool {
	for j := range m.boxOf {
		m.boxOf[j] = -1
	}
	for i := range boxes {
		m.vgen++
		if m.vgen == 0 {
			clear(m.visited)
			m.vgen = 1
		}
		if !m.augment(boxes, i, player) {
			return false
		}
	}
	return true
}

func (m *Matcher) augment(boxes []uint16, i int, player uint16) bool {
	g := len(m.b.Goals)
	q := int(boxes[i])
	row := m.b.Dist[q*g : q*g+g]
	if m.b.RegionDist != nil {
		r := q*board.Regions + int(m.b.Region(boxes[i], player))
		row = m.b.RegionDist[r*g : r*g+g]
	}
	// A box on a goal tries its own goal first: most positions match
	// without any augmenting path.
	if j := m.b.GoalIndex[boxes[i]]; j >= 0 && m.boxOf[j] < 0 {
		m.visited[j] = m.vgen
		m.boxOf[j] = int16(i)
		return true
	}
	for j := range g {
		if m.visited[j] == m.vgen || row[j] == board.Inf {
			continue
		}
		m.visited[j] = m.vgen
		if m.boxOf[j] < 0 || m.augment(boxes, int(m.boxOf[j]), player) {
			m.boxOf[j] = int16(i)
			return true
		}
	}
	return false
}

// Node is one stored position's link: the node it was reached from and
// the macro move that reached it.
type Node struct {
	Parent   int32
	Box      int16
	Side     uint8
	From, To uint16
}

// Store holds the positions a planner has reached: per node its link, its
// hash and its position (the player's region's smallest square, then the
// boxes in index order), in slabs that grow by appending, and an
// open-addressing table from hash to node. It never stores a position
// twice, and it refuses new nodes beyond its limit so a search stays within
// its memory budget.
type Store struct {
	boxes  int
	limit  int
	Nodes  []Node
	hashes []uint64
	data   []uint16
	slots  []int32 // node+1, 0 empty
	mask   uint64
}

// NodeBytes estimates the memory one node takes in a store for positions
// of boxes boxes, table slots included.
func NodeBytes(boxes int) int64 {
	return int64(12+8+2*(boxes+1)) + 2*4
}

// NewStore returns a store for positions of boxes boxes holding at most
// limit nodes.
func NewStore(boxes, limit int) *Store {
	slots := 1024
	for slots < 2*limit {
		slots *= 2
	}
	initial := min(limit, 1<<14)
	return &Store{
		boxes: boxes, limit: limit,
		Nodes: make([]Node, 0, initial), hashes: make([]uint64, 0, initial), data: make([]uint16, 0, initial*(boxes+1)),
		slots: make([]int32, slots), mask: uint64(slots - 1),
	}
}

// Len returns the number of nodes.
func (s *Store) Len() int { return len(s.Nodes) }

// Full reports whether the store holds its limit.
func (s *Store) Full() bool { return len(s.Nodes) >= s.limit }

// Find returns the node with hash h, or -1.
func (s *Store) Find(h uint64) int32 {
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return -1
		}
		if s.hashes[v-1] == h {
			return v - 1
		}
	}
}

// Add stores a new position reached from parent by move m (nil for the
// root) and returns its node, or -1 when the position is already stored
// or the store is full.
func (s *Store) Add(parent int32, m *Move, h uint64, boxes []uint16, norm uint16) int32 {
	if s.Full() {
		return -1
	}
	i := h & s.mask
	for ; s.slots[i] != 0; i = (i + 1) & s.mask {
		if s.hashes[s.slots[i]-1] == h {
			return -1
		}
	}
	id := int32(len(s.Nodes))
	n := Node{Parent: parent, Box: -1}
	if m != nil {
		n.Box, n.Side, n.From, n.To = m.Box, m.Side, m.From, m.To
	}
	s.Nodes = append(s.Nodes, n)
	s.hashes = append(s.hashes, h)
	s.data = append(s.data, norm)
	s.data = append(s.data, boxes...)
	s.slots[i] = id + 1
	return id
}

// Hash returns node id's hash.
func (s *Store) Hash(id int32) uint64 { return s.hashes[id] }

// Norm returns the smallest square of node id's player region.
func (s *Store) Norm(id int32) uint16 { return s.data[int(id)*(s.boxes+1)] }

// Boxes returns node id's boxes in index order; the slice aliases the
// store.
func (s *Store) Boxes(id int32) []uint16 {
	o := int(id)*(s.boxes+1) + 1
	return s.data[o : o+s.boxes : o+s.boxes]
}

// Load sets pos to node id's position.
func (s *Store) Load(id int32, pos *Pos) { pos.Set(s.Boxes(id), s.Norm(id)) }

// Path returns the nodes from the root to id.
func (s *Store) Path(id int32) []int32 {
	var path []int32
	for ; id >= 0; id = s.Nodes[id].Parent {
		path = append(path, id)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}
