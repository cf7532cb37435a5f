package engine

import (
	"slices"
)

// The search path: rebuilding a stored position from the current one by
// walking parent links (YASS's SetPosition), and the pushes of a solution.

func (s *searcher) setOnPath(r uint32) { s.onPath[r>>6] |= 1 << (r & 63) }

func (s *searcher) clearOnPath(r uint32) { s.onPath[r>>6] &^= 1 << (r & 63) }

func (s *searcher) isOnPath(r uint32) bool {
	return s.onPath[r>>6]&(1<<(r&63)) != 0
}

// goTo rebuilds the position of record r from the current one: it walks r's
// parent links up to the nearest record on the current path, takes back the
// current path's pushes below that record, and replays r's pushes.
func (s *searcher) goTo(r uint32) {
	s.pathDead.see(s.learned.used, uint32(s.tt.used))
	s.rebuild = s.rebuild[:0]
	for x := r; !s.isOnPath(x); x = s.tt.slots[x].parent {
		s.rebuild = append(s.rebuild, x)
	}
	anc := r
	if len(s.rebuild) > 0 {
		anc = s.tt.slots[s.rebuild[len(s.rebuild)-1]].parent
	}
	k := len(s.pathRec) - 1
	for s.pathRec[k] != anc {
		k--
	}
	for len(s.pathRec)-1 > k {
		last := len(s.pathRec) - 1
		s.clearOnPath(s.pathRec[last])
		prev := s.b.StartPlayer
		if last >= 2 {
			prev, _ = s.span(s.pathPush[last-1])
		}
		s.undoPush(s.pathPush[last], prev)
		s.pathRec = s.pathRec[:last]
		s.pathPush = s.pathPush[:last]
		s.pathDead.pop()
	}
	for j := len(s.rebuild) - 1; j >= 0; j-- {
		x := s.rebuild[j]
		rec := &s.tt.slots[x]
		var p push
		if rec.from&goalFlag != 0 {
			var ok bool
			if p, ok = s.recall(x); ok {
				s.doMove(int(s.boxAt[p.from]), p)
			} else {
				p = s.redoGoal(rec.from, rec.dir())
			}
		} else {
			p = s.macroStart(rec.from, rec.dir())
			s.doMove(int(s.boxAt[p.from]), p)
		}
		s.pathRec = append(s.pathRec, x)
		s.pathPush = append(s.pathPush, p)
		last, end := s.span(p)
		s.pathDead.add(s.learned.used > 0 && s.pathDead.holdsSince(&s.learned, x, s.boxAt, end, last))
		s.setOnPath(x)
	}
	s.checkPath()
}

// pushPath returns the pushes from the root to record r along parent
// links, one per push. A record holds the last push of a tunnel macro, or
// the first of a goal macro; the other pushes are found again by walking
// the path from the root and, before each move, walking back from its
// last push to the box or (goalPushes) making the goal macro again.
func (s *searcher) pushPath(r uint32) []push {
	s.goTo(r)
	recs := slices.Clone(s.pathRec)
	s.goTo(recs[0])
	var out []push
	for _, x := range recs[1:] {
		rec := &s.tt.slots[x]
		if rec.from&goalFlag != 0 {
			out = s.goalPushes(out, rec.from, rec.dir())
		} else {
			p := s.macroStart(rec.from, rec.dir())
			sq := p.from
			for k := 0; k <= int(p.more); k++ {
				out = append(out, push{from: sq, dir: p.dir})
				sq = s.nbr[int(sq)*4+int(p.dir)]
			}
		}
		s.goTo(x)
	}
	return out
}
