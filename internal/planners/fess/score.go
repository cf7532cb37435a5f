package fess

// score is a position's features (Festival's score_element, the fields
// the base search and the forward search with bases use).
type score struct {
	inLevel      int32 // boxes on the board
	onTargets    int32
	connectivity int32 // regions of free cells
	rooms        int32 // pairs of rooms cut apart
	packed       int32 // steps of the plan done (forward)
	hotspots     int32 // boxes in another's way (forward)
	outOfPlan    int32 // boxes in the out-of-plan zone (forward)
	// dist is Festival's scored distance: forwards, the boxes' pushes to
	// their nearest targets; backwards, the sum over boxes and targets of
	// the pushes from the target to the box. More is better in both.
	dist int32
	// The HF searches' (hf.go): the free squares on no cycle
	// (backwards), the boxes on the imagined position's squares and the
	// least pushes that take the boxes there (forwards).
	biconnect    int32
	imagine      int32
	distImagined int32
}

// mode is one of Festival's searches over the tree.
type mode uint8

const (
	// modeBase is the base search: pulls from the solved position, boxes
	// leaving at their start squares (BASE_SEARCH).
	modeBase mode = iota
	// modeBases is the forward search that follows the base search's
	// plan (FORWARD_WITH_BASES).
	modeBases
	// modeBicon is a backward search that spreads the boxes out, making
	// the free squares cycles (BICON_SEARCH).
	modeBicon
	// modeHF is the forward search that heads for the position modeBicon
	// or modeSpread reached (HF_SEARCH).
	modeHF
	// modeSpread is modeBicon without the feature of free squares on
	// cycles (HF_SEARCH pulling, Festival's strategy D).
	modeSpread
)

// pull reports whether the mode searches backwards.
func (m mode) pull() bool { return m == modeBase || m == modeBicon || m == modeSpread }

// hf reports whether the mode is one of the HF searches.
func (m mode) hf() bool { return m == modeBicon || m == modeHF || m == modeSpread }

// better reports whether a is better than b in mode m.
func (m mode) better(a, b *score) bool {
	if m.hf() {
		return betterHF(a, b, m.pull())
	}
	return better(a, b, m.pull())
}

// key returns a's cell in mode m.
func (m mode) key(a *score) cellKey {
	if m == modeHF {
		return cellKey{0, a.connectivity, 0, a.imagine}
	}
	return a.key(m.pull())
}

// better reports whether a is better than b (Festival's is_better_score
// for its normal, base and forward-with-bases searches).
func better(a, b *score, pull bool) bool {
	if a.inLevel != b.inLevel {
		return a.inLevel < b.inLevel
	}
	if !pull {
		switch {
		case a.packed != b.packed:
			return a.packed > b.packed
		case a.connectivity != b.connectivity:
			return a.connectivity < b.connectivity
		case a.rooms != b.rooms:
			return a.rooms < b.rooms
		case a.outOfPlan != b.outOfPlan:
			return a.outOfPlan < b.outOfPlan
		case a.hotspots != b.hotspots:
			return a.hotspots < b.hotspots
		}
		return a.dist > b.dist
	}
	switch {
	case a.connectivity != b.connectivity:
		return a.connectivity < b.connectivity
	case a.onTargets != b.onTargets:
		return a.onTargets < b.onTargets
	case a.rooms != b.rooms:
		return a.rooms < b.rooms
	}
	return a.dist > b.dist
}

// cellKey is a position's feature-space cell: forwards (packed,
// connectivity, out of plan), backwards (boxes, boxes on targets,
// connectivity, rooms).
type cellKey [4]int32

func (s *score) key(pull bool) cellKey {
	if pull {
		return cellKey{s.inLevel, s.onTargets, s.connectivity, s.rooms}
	}
	return cellKey{s.packed, s.connectivity, s.outOfPlan, 0}
}

// scorer computes scores.
type scorer struct {
	lv       *level
	mode     mode
	pull     bool
	plan     *plan     // modeBases
	hot      *hotspots // modeBases
	imagined grid      // modeHF
	bic      *biconnector
	// scored[c] is the dist a box on cell c adds.
	scored []int32
	mark   []uint32
	gen    uint32
	stack  []int32
}

func newScorer(lv *level, m mode, p *plan, hot *hotspots, imagined grid) *scorer {
	pull := m.pull()
	s := &scorer{lv: lv, mode: m, pull: pull, plan: p, hot: hot, imagined: imagined, scored: make([]int32, len(lv.start)), mark: make([]uint32, len(lv.start))}
	if m == modeBicon {
		s.bic = newBiconnector(lv)
	}
	n := lv.n()
	if pull {
		for i, c := range lv.cell {
			sum := int32(0)
			for j, t := range lv.cell {
				if lv.start[t]&target != 0 && lv.dist[i*n+j] != inf {
					sum += int32(lv.dist[i*n+j])
				}
			}
			s.scored[c] = sum
		}
		return s
	}
	targets := make([]bool, len(lv.start))
	for _, c := range lv.cell {
		targets[c] = lv.start[c]&target != 0
	}
	copy(s.scored, lv.distanceFrom(lv.empty(), targets, true))
	return s
}

// score returns g's score (Festival's score_board).
func (s *scorer) score(g grid) score {
	lv := s.lv
	var sc score
	sc.inLevel, sc.onTargets = lv.countBoxes(g)
	sc.connectivity = lv.connectivity(g, s.mark, &s.gen, s.stack)
	switch s.mode {
	case modeHF:
		// Festival's fill_hf_scores: the boxes on targets are no
		// feature here; the distance to the imagined squares comes with
		// the parent's expansion (imagineDistances).
		sc.onTargets = 0
		sc.hotspots = lv.hfHotspots(g, s.imagined, false)
		sc.imagine = lv.onImagined(g, s.imagined)
		return sc
	case modeBicon, modeSpread:
		sc.onTargets = 0
		sc.hotspots = lv.hfHotspots(g, nil, true)
		if s.bic != nil {
			sc.biconnect = s.bic.score(g)
		}
		sc.rooms = lv.rooms.score(g)
		for _, c := range lv.cell {
			if g[c]&box != 0 {
				sc.dist += s.scored[c]
			}
		}
		return sc
	}
	sc.rooms = lv.rooms.score(g)
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			sc.dist += s.scored[c]
		}
	}
	if !s.pull {
		sc.packed = s.plan.packed(g)
		sc.hotspots = s.hot.score(g)
		sc.outOfPlan = s.plan.outOfPlan(lv, g, sc.packed)
	}
	return sc
}
