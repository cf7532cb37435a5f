package sokoban

import "fmt"

// Metrics are the standard measures of a solution.
type Metrics struct {
	// Moves counts every step, pushes included.
	Moves int `json:"moves"`
	// Pushes counts the steps that move a box.
	Pushes int `json:"pushes"`
	// BoxLines counts pushes of another box than the one pushed last, or
	// of the same box in a new direction; the first push counts.
	BoxLines int `json:"box_lines"`
	// BoxChanges counts pushes of another box than the one pushed last;
	// the first push counts.
	BoxChanges int `json:"box_changes"`
	// PushingSessions counts pushes whose previous step was not a push;
	// a first step that pushes counts.
	PushingSessions int `json:"pushing_sessions"`
	// PlayerLines counts changes of step direction, the first step
	// counting as one.
	PlayerLines int `json:"player_lines"`
	// Solved reports whether every box stands on a goal at the end.
	Solved bool `json:"solved"`
}

// StepErrorKind says why a step is illegal.
type StepErrorKind int

// The kinds of illegal step.
const (
	// StepIntoWall: the player walks into a wall.
	StepIntoWall StepErrorKind = iota + 1
	// BoxBlocked: a push would move the box into a wall or another box.
	BoxBlocked
	// PushWrittenAsMove: a lower-case step walks into a box.
	PushWrittenAsMove
	// MoveWrittenAsPush: an upper-case step has no box to push.
	MoveWrittenAsPush
)

// String returns a short stable name of the kind, fit for JSON.
func (k StepErrorKind) String() string {
	switch k {
	case StepIntoWall:
		return "into wall"
	case BoxBlocked:
		return "box blocked"
	case PushWrittenAsMove:
		return "push written as move"
	case MoveWrittenAsPush:
		return "move written as push"
	}
	return fmt.Sprintf("StepErrorKind(%d)", int(k))
}

// StepError names the first illegal step of a solution.
type StepError struct {
	// Index is the 1-based number of the step in the solution.
	Index int
	Step  Step
	Kind  StepErrorKind
	// X and Y are the player's square before the step.
	X, Y int
}

// Error returns "step N 'c': reason".
func (e *StepError) Error() string {
	return fmt.Sprintf("step %d %q %s from column %d, row %d: %s", e.Index, e.Step.Byte(), e.Step.Dir, e.X+1, e.Y+1, e.Why())
}

// Why says in words why the step is illegal, without its place.
func (e *StepError) Why() string {
	switch e.Kind {
	case StepIntoWall:
		return "the player walks into a wall"
	case BoxBlocked:
		return "the box is pushed into a wall or another box"
	case PushWrittenAsMove:
		return "this step pushes a box but is written as a move (lower case)"
	case MoveWrittenAsPush:
		return "this step pushes no box but is written as a push (upper case)"
	}
	return e.Kind.String()
}

// Replay plays s on l and returns its metrics. At the first illegal step
// it stops and returns the metrics of the steps before it together with a
// *StepError. A legal solution that does not end solved is no error:
// Metrics.Solved says so.
func Replay(l *Level, s Solution) (Metrics, error) {
	cells := l.Cells()
	w := l.width
	player := l.player
	var m Metrics
	lastBox := -1 // square of the box pushed last, after its push
	var lastPushDir Direction
	prevPush := false
	for i, st := range s {
		dx, dy := st.Dir.Delta()
		x, y := player%w, player/w
		fail := func(k StepErrorKind) (Metrics, error) {
			m.Solved = solved(cells)
			return m, &StepError{Index: i + 1, Step: st, Kind: k, X: x, Y: y}
		}
		next := l.index(x+dx, y+dy)
		if next < 0 || cells[next].Has(Wall) {
			return fail(StepIntoWall)
		}
		isPush := cells[next].Has(Box)
		switch {
		case isPush && !st.Push:
			return fail(PushWrittenAsMove)
		case !isPush && st.Push:
			return fail(MoveWrittenAsPush)
		}
		if isPush {
			to := l.index(x+2*dx, y+2*dy)
			if to < 0 || cells[to]&(Wall|Box) != 0 {
				return fail(BoxBlocked)
			}
			cells[next] &^= Box
			cells[to] |= Box
			m.Pushes++
			if next != lastBox {
				m.BoxChanges++
			}
			if next != lastBox || st.Dir != lastPushDir {
				m.BoxLines++
			}
			if !prevPush {
				m.PushingSessions++
			}
			lastBox, lastPushDir = to, st.Dir
		}
		if i == 0 || st.Dir != s[i-1].Dir {
			m.PlayerLines++
		}
		m.Moves++
		prevPush = isPush
		cells[player] &^= Player
		cells[next] |= Player
		player = next
	}
	m.Solved = solved(cells)
	return m, nil
}

// index returns y*Width+x, or -1 off the board.
func (l *Level) index(x, y int) int {
	if x < 0 || y < 0 || x >= l.width || y >= l.height {
		return -1
	}
	return y*l.width + x
}

func solved(cells []Cell) bool {
	for _, c := range cells {
		if c.Has(Box) && !c.Has(Goal) {
			return false
		}
	}
	return true
}
