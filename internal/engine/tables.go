package engine

import (
	"fmt"
	"strings"
)

// Deadlocks is deadlock knowledge compiled for one board, the form an
// external detector returns (sdk.DeadlockTables): dead squares, capacity-
// counted sets and region limits. The search keeps one counter per set and
// limit, updated per push in time proportional to the sets holding the two
// squares involved (the YASS representation), so no knowledge is consulted
// per position beyond that.
type Deadlocks struct {
	// Name identifies the detector in statistics and reasons.
	Name string
	// Trusted says the knowledge is sokod's own. The search cannot check
	// untrusted knowledge, so when it pruned a position by it, an
	// exhausted search is not reported as a proof of unsolvability and a
	// solution is not claimed push-optimal.
	Trusted bool
	// Dead lists squares no box may stand on off a goal (goals in it are
	// ignored).
	Dead []uint16
	// Sets are squares that hold at most Capacity boxes.
	Sets []DeadlockSet
	// Limits bound the boxes in regions.
	Limits []RegionLimit
	// Checker, when set, judges positions in batches beside the tables
	// (batch.go). Trusted covers its verdicts too.
	Checker Checker
}

// DeadlockSet is a set of squares that can hold at most Capacity boxes.
type DeadlockSet struct {
	Squares  []uint16
	Capacity int
	// LastPush, when 0 to 3 (a sokoban.Direction), restricts the set to
	// positions reached by a push in that direction onto one of Squares;
	// -1 means any.
	LastPush int8
}

// RegionLimit bounds the number of boxes in a region: at most Boxes when
// AtMost, else at least Boxes.
type RegionLimit struct {
	Squares []uint16
	AtMost  bool
	Boxes   int
}

// check validates d against b.
func (d *Deadlocks) check(b *Board) error {
	inRange := func(what string, sq []uint16) error {
		for _, s := range sq {
			if int(s) >= b.Squares {
				return fmt.Errorf("engine: deadlocks %q: %s: square %d of %d", d.Name, what, s, b.Squares)
			}
		}
		return nil
	}
	if err := inRange("dead squares", d.Dead); err != nil {
		return err
	}
	for i, set := range d.Sets {
		if err := inRange(fmt.Sprintf("set %d", i), set.Squares); err != nil {
			return err
		}
		if set.Capacity < 0 || set.LastPush < -1 || set.LastPush > 3 {
			return fmt.Errorf("engine: deadlocks %q: set %d: capacity %d, last push %d", d.Name, i, set.Capacity, set.LastPush)
		}
	}
	for i, l := range d.Limits {
		if err := inRange(fmt.Sprintf("limit %d", i), l.Squares); err != nil {
			return err
		}
		if l.Boxes < 0 {
			return fmt.Errorf("engine: deadlocks %q: limit %d: %d boxes", d.Name, i, l.Boxes)
		}
	}
	return nil
}

// counters are the sets and limits of every Deadlocks of a search, as one
// list of constraints on box counts with, per square, the constraints that
// count it.
type counters struct {
	count    []int32 // boxes in each constraint's squares, for the current position
	max      []int32 // a count above max is a deadlock
	min      []int32 // a count below min is a deadlock
	dir      []int8  // the push direction max applies to, or -1 for any
	owner    []int16 // the Deadlocks each constraint came from
	first    []int32 // constraints of square s: members[first[s]:first[s+1]]
	members  []int32
	names    []string
	trusted  []bool
	dead     []bool  // the board's dead squares and every detector's, off goals
	deadBy   []int16 // per square: the detector that made it dead, or -1 for the board or none
	untrusty int16   // the first untrusted detector that pruned, or -1
}

// newCounters compiles ds for b; nil when ds hold no sets or limits and no
// dead square the board does not know.
func newCounters(b *Board, ds []*Deadlocks) *counters {
	if len(ds) == 0 {
		return nil
	}
	c := &counters{untrusty: -1, dead: append([]bool(nil), b.Dead...), deadBy: make([]int16, b.Squares+1)}
	for i := range c.deadBy {
		c.deadBy[i] = -1
	}
	per := make([][]int32, b.Squares+1)
	add := func(owner int, squares []uint16, max, min int32, dir int8) {
		k := int32(len(c.count))
		c.count = append(c.count, 0)
		c.max, c.min, c.dir = append(c.max, max), append(c.min, min), append(c.dir, dir)
		c.owner = append(c.owner, int16(owner))
		seen := make(map[uint16]bool, len(squares))
		for _, s := range squares {
			if !seen[s] {
				seen[s] = true
				per[s] = append(per[s], k)
			}
		}
	}
	for i, d := range ds {
		c.names = append(c.names, d.Name)
		c.trusted = append(c.trusted, d.Trusted)
		for _, s := range d.Dead {
			if b.GoalIndex[s] < 0 && !c.dead[s] {
				c.dead[s] = true
				c.deadBy[s] = int16(i)
			}
		}
		for _, set := range d.Sets {
			add(i, set.Squares, int32(set.Capacity), 0, set.LastPush)
		}
		for _, l := range d.Limits {
			if l.AtMost {
				add(i, l.Squares, int32(l.Boxes), 0, -1)
			} else {
				add(i, l.Squares, 1<<30, int32(l.Boxes), -1)
			}
		}
	}
	c.first = make([]int32, b.Squares+2)
	for s, list := range per {
		c.first[s+1] = c.first[s] + int32(len(list))
		c.members = append(c.members, list...)
	}
	return c
}

// place counts a box on square s (delta 1) or takes it away (-1).
func (c *counters) place(s uint16, delta int32) {
	for _, k := range c.members[c.first[s]:c.first[s+1]] {
		c.count[k] += delta
	}
}

// violated reports the first constraint the current position breaks after
// a push in direction dir from square from onto square to, or -1. Only
// constraints holding from or to can have changed.
func (c *counters) violated(from, to uint16, dir uint8) int32 {
	for _, k := range c.members[c.first[to]:c.first[to+1]] {
		if c.count[k] > c.max[k] && (c.dir[k] < 0 || uint8(c.dir[k]) == dir) {
			return k
		}
	}
	for _, k := range c.members[c.first[from]:c.first[from+1]] {
		if c.count[k] < c.min[k] {
			return k
		}
	}
	return -1
}

// violatedAtStart reports the first constraint the start position breaks,
// or -1. Sets restricted to a push direction do not apply: no push led
// there.
func (c *counters) violatedAtStart() int32 {
	for k := range c.count {
		if c.count[k] > c.max[k] && c.dir[k] < 0 || c.count[k] < c.min[k] {
			return int32(k)
		}
	}
	return -1
}

// pruned records that detector owner's knowledge pruned a position.
func (c *counters) pruned(owner int16) {
	if !c.trusted[owner] && c.untrusty < 0 {
		c.untrusty = owner
	}
}

// untrustedNote is the reason suffix when untrusted knowledge pruned.
func (c *counters) untrustedNote() string {
	if c == nil || c.untrusty < 0 {
		return ""
	}
	return fmt.Sprintf("; positions were pruned by deadlock detector %s, which sokod cannot check, so this is no proof",
		strings.TrimSpace(c.names[c.untrusty]))
}
