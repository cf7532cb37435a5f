package sdk

import (
	"encoding/binary"
	"fmt"
	"slices"

	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sokoban"
)

// This file converts between the SDK's plain types and the generated ones.
// Conversions from the wire validate, and say which side is at fault by
// wrapping ErrBadRequest (in a plugin) or ErrBadAnswer (in the host); the
// caller passes the sentinel.

func intsToProto(s []int) []uint32 {
	out := make([]uint32, len(s))
	for i, v := range s {
		out[i] = uint32(v)
	}
	return out
}

func intsFromProto(s []uint32) []int {
	if len(s) == 0 {
		return nil
	}
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

func levelToProto(l *Level) *pb.Level {
	return &pb.Level{
		Width:   uint32(l.Width),
		Height:  uint32(l.Height),
		Squares: intsToProto(l.Squares),
		Goals:   intsToProto(l.Goals),
		Boxes:   intsToProto(l.Boxes),
		Player:  uint32(l.Player),
		Xsb:     l.XSB,
		Title:   l.Title,
	}
}

// levelFromProto converts and validates a level sent by the host.
func levelFromProto(p *pb.Level) (*Level, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: no level", ErrBadRequest)
	}
	l := &Level{
		Width:   int(p.GetWidth()),
		Height:  int(p.GetHeight()),
		Squares: intsFromProto(p.GetSquares()),
		Goals:   intsFromProto(p.GetGoals()),
		Boxes:   intsFromProto(p.GetBoxes()),
		Player:  int(p.GetPlayer()),
		XSB:     p.GetXsb(),
		Title:   p.GetTitle(),
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return l, nil
}

// packUint16 writes v little-endian, two bytes each.
func packUint16(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

// unpackUint16 reads little-endian uint16s; len(b) must be even.
func unpackUint16(b []byte) []uint16 {
	v := make([]uint16, len(b)/2)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return v
}

func statesToProto(s States) *pb.StateBatch {
	return &pb.StateBatch{Boxes: uint32(s.Boxes), Data: packUint16(s.Data)}
}

// statesFromProto unpacks a batch and checks its shape and that its squares
// are below squares. bad is the sentinel to wrap.
func statesFromProto(p *pb.StateBatch, squares int, bad error) (States, error) {
	if p == nil {
		return States{}, fmt.Errorf("%w: no states", bad)
	}
	if len(p.GetData())%2 != 0 {
		return States{}, fmt.Errorf("%w: state data of odd length %d", bad, len(p.GetData()))
	}
	s := States{Boxes: int(p.GetBoxes()), Data: unpackUint16(p.GetData())}
	if err := s.validate(squares); err != nil {
		// validate wraps ErrBadRequest; rewrap with the right side's fault.
		return States{}, fmt.Errorf("%w: %v", bad, err)
	}
	return s, nil
}

func rulesToProto(r Rule) pb.CombiningRule {
	switch r {
	case RuleSumOfMinima:
		return pb.CombiningRule_COMBINING_RULE_SUM_OF_MINIMA
	case RuleGreedy:
		return pb.CombiningRule_COMBINING_RULE_GREEDY
	case RuleMatching:
		return pb.CombiningRule_COMBINING_RULE_MATCHING
	}
	return pb.CombiningRule_COMBINING_RULE_UNSPECIFIED
}

func ruleFromProto(r pb.CombiningRule) Rule {
	switch r {
	case pb.CombiningRule_COMBINING_RULE_SUM_OF_MINIMA:
		return RuleSumOfMinima
	case pb.CombiningRule_COMBINING_RULE_GREEDY:
		return RuleGreedy
	case pb.CombiningRule_COMBINING_RULE_MATCHING:
		return RuleMatching
	}
	return 0
}

// Validate checks the tables against a level with the given numbers of
// squares and goals.
func (t *HeuristicTables) Validate(squares, goals int) error {
	if len(t.Costs) != squares*goals {
		return fmt.Errorf("cost table has %d entries, want %d squares x %d goals", len(t.Costs), squares, goals)
	}
	if n := len(t.SideCosts); n != 0 && n != squares*Sides*goals {
		return fmt.Errorf("side cost table has %d entries, want %d squares x %d sides x %d goals", n, squares, Sides, goals)
	}
	if t.Rule < RuleSumOfMinima || t.Rule > RuleMatching {
		return fmt.Errorf("unknown combining rule %d", t.Rule)
	}
	for i, p := range t.Penalties {
		if len(p.Squares) == 0 || p.Cost < 0 {
			return fmt.Errorf("penalty %d: %d squares, cost %d", i, len(p.Squares), p.Cost)
		}
		if err := squaresIn(p.Squares, squares); err != nil {
			return fmt.Errorf("penalty %d: %w", i, err)
		}
	}
	return nil
}

func squaresIn(sq []int, squares int) error {
	for _, s := range sq {
		if s < 0 || s >= squares {
			return fmt.Errorf("square %d is not one of the %d squares", s, squares)
		}
	}
	return nil
}

func heuristicTablesToProto(t *HeuristicTables) *pb.HeuristicTables {
	p := &pb.HeuristicTables{Costs: packUint16(t.Costs), Rule: rulesToProto(t.Rule)}
	if len(t.SideCosts) > 0 {
		p.SideCosts = packUint16(t.SideCosts)
	}
	for _, pen := range t.Penalties {
		p.Penalties = append(p.Penalties, &pb.Penalty{Squares: intsToProto(pen.Squares), Cost: uint32(pen.Cost)})
	}
	return p
}

func heuristicTablesFromProto(p *pb.HeuristicTables, squares, goals int) (*HeuristicTables, error) {
	if len(p.GetCosts())%2 != 0 {
		return nil, fmt.Errorf("%w: cost table of odd length %d bytes", ErrBadAnswer, len(p.GetCosts()))
	}
	if len(p.GetSideCosts())%2 != 0 {
		return nil, fmt.Errorf("%w: side cost table of odd length %d bytes", ErrBadAnswer, len(p.GetSideCosts()))
	}
	t := &HeuristicTables{Costs: unpackUint16(p.GetCosts()), Rule: ruleFromProto(p.GetRule())}
	if len(p.GetSideCosts()) > 0 {
		t.SideCosts = unpackUint16(p.GetSideCosts())
	}
	for _, pen := range p.GetPenalties() {
		t.Penalties = append(t.Penalties, Penalty{Squares: intsFromProto(pen.GetSquares()), Cost: int(pen.GetCost())})
	}
	if err := t.Validate(squares, goals); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	return t, nil
}

// Validate checks the tables against a level with the given number of
// squares.
func (t *DeadlockTables) Validate(squares int) error {
	if err := squaresIn(t.DeadSquares, squares); err != nil {
		return fmt.Errorf("dead squares: %w", err)
	}
	for i, s := range t.Sets {
		if len(s.Squares) == 0 || s.Capacity < 0 || s.Capacity >= len(s.Squares) || s.LastPush > Down {
			return fmt.Errorf("deadlock set %d: %d squares, capacity %d, direction %d", i, len(s.Squares), s.Capacity, s.LastPush)
		}
		if err := squaresIn(s.Squares, squares); err != nil {
			return fmt.Errorf("deadlock set %d: %w", i, err)
		}
	}
	for i, r := range t.Limits {
		if len(r.Squares) == 0 || (r.Bound != AtMost && r.Bound != AtLeast) || r.Boxes < 0 {
			return fmt.Errorf("region limit %d: %d squares, bound %d, %d boxes", i, len(r.Squares), r.Bound, r.Boxes)
		}
		if err := squaresIn(r.Squares, squares); err != nil {
			return fmt.Errorf("region limit %d: %w", i, err)
		}
	}
	return nil
}

func directionToProto(d Direction) pb.Direction { return pb.Direction(d) }

func directionFromProto(d pb.Direction) Direction {
	if d < pb.Direction_DIRECTION_UNSPECIFIED || d > pb.Direction_DIRECTION_DOWN {
		return Down + 1 // invalid; Validate rejects it
	}
	return Direction(d)
}

func regionLimitToProto(r RegionLimit) *pb.RegionLimit {
	b := pb.Bound_BOUND_UNSPECIFIED
	switch r.Bound {
	case AtMost:
		b = pb.Bound_BOUND_AT_MOST
	case AtLeast:
		b = pb.Bound_BOUND_AT_LEAST
	}
	return &pb.RegionLimit{Squares: intsToProto(r.Squares), Bound: b, Boxes: uint32(r.Boxes)}
}

func regionLimitFromProto(p *pb.RegionLimit) RegionLimit {
	r := RegionLimit{Squares: intsFromProto(p.GetSquares()), Boxes: int(p.GetBoxes())}
	switch p.GetBound() {
	case pb.Bound_BOUND_AT_MOST:
		r.Bound = AtMost
	case pb.Bound_BOUND_AT_LEAST:
		r.Bound = AtLeast
	}
	return r
}

func deadlockTablesToProto(t *DeadlockTables) *pb.DeadlockTables {
	p := &pb.DeadlockTables{DeadSquares: intsToProto(t.DeadSquares)}
	for _, s := range t.Sets {
		p.Sets = append(p.Sets, &pb.DeadlockSet{Squares: intsToProto(s.Squares), Capacity: uint32(s.Capacity), LastPush: directionToProto(s.LastPush)})
	}
	for _, r := range t.Limits {
		p.Limits = append(p.Limits, regionLimitToProto(r))
	}
	return p
}

func deadlockTablesFromProto(p *pb.DeadlockTables, squares int) (*DeadlockTables, error) {
	t := &DeadlockTables{DeadSquares: intsFromProto(p.GetDeadSquares())}
	for _, s := range p.GetSets() {
		t.Sets = append(t.Sets, DeadlockSet{Squares: intsFromProto(s.GetSquares()), Capacity: int(s.GetCapacity()), LastPush: directionFromProto(s.GetLastPush())})
	}
	for _, r := range p.GetLimits() {
		t.Limits = append(t.Limits, regionLimitFromProto(r))
	}
	if err := t.Validate(squares); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	return t, nil
}

// kindNames maps the wire's kinds to the SDK's; it is never modified.
var kindNames = map[pb.Kind]Kind{
	pb.Kind_KIND_HEURISTIC: KindHeuristic,
	pb.Kind_KIND_DEADLOCK:  KindDeadlock,
	pb.Kind_KIND_PLANNER:   KindPlanner,
}

// capabilityNames maps the wire's capabilities to the SDK's; it is never
// modified.
var capabilityNames = map[pb.Capability]Capability{
	pb.Capability_CAPABILITY_HEURISTIC_TABLES:     CapHeuristicTables,
	pb.Capability_CAPABILITY_HEURISTIC_ESTIMATE:   CapHeuristicEstimate,
	pb.Capability_CAPABILITY_HEURISTIC_ADMISSIBLE: CapAdmissible,
	pb.Capability_CAPABILITY_DEADLOCK_TABLES:      CapDeadlockTables,
	pb.Capability_CAPABILITY_DEADLOCK_CHECK:       CapDeadlockCheck,
	pb.Capability_CAPABILITY_PLANNER_HOST:         CapPlannerHost,
}

func infoToProto(i *Info) (*pb.InfoResponse, error) {
	p := &pb.InfoResponse{Name: i.Name, Version: i.Version, Summary: i.Summary}
	for _, k := range i.Kinds {
		pk, ok := keyOf(kindNames, k)
		if !ok {
			return nil, fmt.Errorf("unknown kind %q", k)
		}
		p.Kinds = append(p.Kinds, pk)
	}
	for _, c := range i.Capabilities {
		pc, ok := keyOf(capabilityNames, c)
		if !ok {
			return nil, fmt.Errorf("unknown capability %q", c)
		}
		p.Capabilities = append(p.Capabilities, pc)
	}
	return p, nil
}

func keyOf[K comparable, V comparable](m map[K]V, v V) (K, bool) {
	for k, x := range m {
		if x == v {
			return k, true
		}
	}
	var zero K
	return zero, false
}

// infoFromProto converts a plugin's Info answer. Kinds and capabilities from
// a newer protocol revision are kept under a descriptive name, so listings
// show them, but Validate fails on kinds this host does not know.
func infoFromProto(p *pb.InfoResponse) (*Info, error) {
	i := &Info{Name: p.GetName(), Version: p.GetVersion(), Summary: p.GetSummary()}
	for _, k := range p.GetKinds() {
		name, ok := kindNames[k]
		if !ok {
			return nil, fmt.Errorf("%w: unknown kind %d", ErrBadAnswer, k)
		}
		i.Kinds = append(i.Kinds, name)
	}
	for _, c := range p.GetCapabilities() {
		name, ok := capabilityNames[c]
		if !ok {
			name = Capability(fmt.Sprintf("capability-%d", c))
		}
		i.Capabilities = append(i.Capabilities, name)
	}
	if err := i.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	return i, nil
}

func budgetToProto(b Budget) *pb.Budget {
	p := &pb.Budget{Nodes: b.Nodes, MemoryBytes: b.MemoryBytes}
	if b.Time > 0 {
		p.Time = durationpb.New(b.Time)
	}
	return p
}

func budgetFromProto(p *pb.Budget) Budget {
	b := Budget{Nodes: p.GetNodes(), MemoryBytes: p.GetMemoryBytes()}
	if p.GetTime() != nil {
		b.Time = p.GetTime().AsDuration()
	}
	return b
}

// pushBytes is the size of one packed push: square (uint16) and direction.
const pushBytes = 3

func packPushes(ps []Push) []byte {
	b := make([]byte, pushBytes*len(ps))
	for i, p := range ps {
		binary.LittleEndian.PutUint16(b[pushBytes*i:], p.Box)
		b[pushBytes*i+2] = byte(p.Dir)
	}
	return b
}

func unpackPushes(b []byte, squares int, bad error) ([]Push, error) {
	if len(b)%pushBytes != 0 {
		return nil, fmt.Errorf("%w: push data of %d bytes is not a whole number of pushes", bad, len(b))
	}
	ps := make([]Push, len(b)/pushBytes)
	for i := range ps {
		ps[i] = Push{Box: binary.LittleEndian.Uint16(b[pushBytes*i:]), Dir: sokoban.Direction(b[pushBytes*i+2])}
		if int(ps[i].Box) >= squares || ps[i].Dir > sokoban.Down {
			return nil, fmt.Errorf("%w: push %d moves square %d in direction %d", bad, i, ps[i].Box, ps[i].Dir)
		}
	}
	return ps, nil
}

// sortedKinds returns the kinds in a fixed order, for Info.
func sortedKinds(ks []Kind) []Kind {
	out := slices.Clone(ks)
	slices.Sort(out)
	return slices.Compact(out)
}
