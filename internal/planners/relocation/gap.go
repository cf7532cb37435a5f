package relocation

import (
	"time"

	"github.com/sokod/sokod/sdk/macro"
)

// The macro gap search: relocation by pushes towards one reverse position.
//
// The host's sub-search aims at box squares only, so it cannot close a gap
// to a reverse position whose player must end in one region of several;
// and it starts from scratch each time. The macro gap search is the
// relocation sub-task done here: a bounded best-first search over macro
// pushes from a forward position towards the boxes of one reverse position
// (the cheapest matching of lone-box push distances, as the aim searches
// order by), which ends as soon as it reaches any position the reverse
// store holds, player region included. Its positions join the forward
// store (the path of a solution runs through the store's links), but it
// keeps its own visited set, so positions the other searches stored
// already do not block its way.

// maxVisited bounds a gap search's visited set (about 40 bytes an entry).
const maxVisited = 1 << 19

// gapSearch is the scratch space of the macro gap searches of a plan.
type gapSearch struct {
	f       *forwarder
	pos     *macro.Pos
	heap    macro.Heap
	visited map[uint64]bool
	seq     uint32
}

func newGapSearch(f *forwarder) *gapSearch {
	return &gapSearch{f: f, pos: macro.NewPos(f.b), visited: map[uint64]bool{}}
}

// run searches from forward node fid towards reverse node rid's boxes for
// at most limit expansions, each counted by run, and at most the time
// share. It returns the forward node and reverse node of a meeting, or
// -1s; full is true when the forward store is full, stop says why the
// plan must stop.
func (g *gapSearch) run(run *macro.Run, fid int32, rev *reverser, rid int32, limit int, share time.Duration) (f, r int32, full bool, stop string) {
	end := time.Now().Add(share)
	fw := g.f
	rev.store.Load(rid, g.pos)
	a := newAimAt(fw.st, rid, g.pos)
	clear(g.visited)
	g.heap = macro.Heap{}
	fw.store.Load(fid, g.pos)
	g.push(fid, a.estimate(g.pos.Boxes), 0)
	g.visited[fw.store.Hash(fid)] = true
	for n := 0; n < limit && g.heap.Len() > 0; n++ {
		if s, reason := run.Tick(); s {
			return -1, -1, false, reason
		}
		if n%16 == 15 && time.Now().After(end) {
			break
		}
		it := g.heap.Pop()
		id := it.ID
		depth := int(it.Pri>>16) & 0xFFFF
		fw.store.Load(id, g.pos)
		pos := g.pos
		if id != fw.root && fw.deadlocked(pos) {
			continue
		}
		player := pos.Player
		a.estimate(pos.Boxes)
		moves := fw.g.Generate(pos, nil)
		for i := range moves {
			if i%256 == 255 && run.Expired() {
				break
			}
			m := &moves[i]
			if g.visited[m.Hash] {
				continue
			}
			if len(g.visited) >= maxVisited {
				return -1, -1, false, ""
			}
			g.visited[m.Hash] = true
			est := a.child(int(m.Box), m.From, m.To)
			if est < 0 {
				continue
			}
			child := fw.store.Find(m.Hash)
			if child < 0 {
				pos.Apply(m)
				child = fw.store.Add(id, m, m.Hash, pos.Boxes, m.Norm)
				pos.Undo(m, player)
				if child < 0 {
					return -1, -1, true, ""
				}
				fw.regions = append(fw.regions, uint16(m.Regions))
				fw.depth = append(fw.depth, fw.depth[id]+1)
			}
			if r := rev.store.Find(m.Hash); r >= 0 {
				return child, r, false, ""
			}
			g.push(child, est, depth+1)
		}
	}
	return -1, -1, false, ""
}

// push queues node id with its estimate and depth in this search: the
// estimate weighs most, then the depth, then the newest.
func (g *gapSearch) push(id int32, est, depth int) {
	g.seq++
	pri := uint64(min(aimWeight*est+depth, 0xFFFFFF))<<32 | uint64(min(depth, 0xFFFF))<<16 | uint64(^g.seq&0xFFFF)
	g.heap.Push(macro.Item{Pri: pri, ID: id})
}
