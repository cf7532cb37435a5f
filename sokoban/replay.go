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
	r := newReplayer(l)
	for _, st := range s {
		if err := r.step(st); err != nil {
			return r.metrics(), err
		}
	}
	return r.metrics(), nil
}

// ReplayText is Replay of a solution in LURD text: it reads the steps as
// it plays them, so that a short text that counts many steps ("1000(
// 10000(r))") takes no memory for them. A malformed text is a
// *SolutionError, found before any step is played.
func ReplayText(l *Level, text string) (Metrics, error) {
	prog, _, err := compileLURD(text)
	if err != nil {
		return Metrics{}, err
	}
	r := newReplayer(l)
	walkLURD(prog, func(st Step) bool {
		err = r.step(st)
		return err == nil
	})
	return r.metrics(), err
}

// replayer plays steps on a copy of a level's cells.
type replayer struct {
	l        *Level
	cells    []Cell
	player   int
	m        Metrics
	lastBox  int // square of the box pushed last, after its push
	lastPush Direction
	prev     Step // the step before
	prevPush bool
}

func newReplayer(l *Level) *replayer {
	return &replayer{l: l, cells: l.Cells(), player: l.player, lastBox: -1}
}

// step plays st, or returns a *StepError and changes nothing.
func (r *replayer) step(st Step) error {
	l, cells := r.l, r.cells
	dx, dy := st.Dir.Delta()
	x, y := r.player%l.width, r.player/l.width
	fail := func(k StepErrorKind) error {
		return &StepError{Index: r.m.Moves + 1, Step: st, Kind: k, X: x, Y: y}
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
	m := &r.m
	if isPush {
		to := l.index(x+2*dx, y+2*dy)
		if to < 0 || cells[to]&(Wall|Box) != 0 {
			return fail(BoxBlocked)
		}
		cells[next] &^= Box
		cells[to] |= Box
		m.Pushes++
		if next != r.lastBox {
			m.BoxChanges++
		}
		if next != r.lastBox || st.Dir != r.lastPush {
			m.BoxLines++
		}
		if !r.prevPush {
			m.PushingSessions++
		}
		r.lastBox, r.lastPush = to, st.Dir
	}
	if m.Moves == 0 || st.Dir != r.prev.Dir {
		m.PlayerLines++
	}
	m.Moves++
	r.prev, r.prevPush = st, isPush
	cells[r.player] &^= Player
	cells[next] |= Player
	r.player = next
	return nil
}

// metrics returns the metrics of the steps played so far.
func (r *replayer) metrics() Metrics {
	m := r.m
	m.Solved = solved(r.cells)
	return m
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
