package wire

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// The conversions between the SDK's plain types and the generated ones.
// Conversions from the wire validate, and say which side is at fault by
// wrapping sdk.ErrBadRequest (in a plugin) or sdk.ErrBadAnswer (in the
// host); the caller passes the sentinel where either side may call them.

func IntsToProto(s []int) []uint32 {
	out := make([]uint32, len(s))
	for i, v := range s {
		out[i] = uint32(v)
	}
	return out
}

// IntsFromProto converts square numbers and counts from the wire; an
// empty list is nil.
func IntsFromProto(s []uint32) []int {
	if len(s) == 0 {
		return nil
	}
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// LevelToProto converts a level for the wire.
func LevelToProto(l *sdk.Level) *pb.Level {
	return &pb.Level{
		Width:   uint32(l.Width),
		Height:  uint32(l.Height),
		Squares: IntsToProto(l.Squares),
		Goals:   IntsToProto(l.Goals),
		Boxes:   IntsToProto(l.Boxes),
		Player:  uint32(l.Player),
		Xsb:     l.XSB,
		Title:   l.Title,
	}
}

// LevelFromProto converts and validates a level sent by the host.
func LevelFromProto(p *pb.Level) (*sdk.Level, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: no level", sdk.ErrBadRequest)
	}
	l := &sdk.Level{
		Width:   int(p.GetWidth()),
		Height:  int(p.GetHeight()),
		Squares: IntsFromProto(p.GetSquares()),
		Goals:   IntsFromProto(p.GetGoals()),
		Boxes:   IntsFromProto(p.GetBoxes()),
		Player:  int(p.GetPlayer()),
		XSB:     p.GetXsb(),
		Title:   p.GetTitle(),
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadRequest, err)
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

// StatesToProto packs a batch of positions for the wire.
func StatesToProto(s sdk.States) *pb.StateBatch {
	return &pb.StateBatch{Boxes: uint32(s.Boxes), Data: packUint16(s.Data)}
}

// StatesFromProto unpacks a batch and checks its shape and that its squares
// are below squares. bad is the sentinel to wrap.
func StatesFromProto(p *pb.StateBatch, squares int, bad error) (sdk.States, error) {
	if p == nil {
		return sdk.States{}, fmt.Errorf("%w: no states", bad)
	}
	if len(p.GetData())%2 != 0 {
		return sdk.States{}, fmt.Errorf("%w: state data of odd length %d", bad, len(p.GetData()))
	}
	s := sdk.States{Boxes: int(p.GetBoxes()), Data: unpackUint16(p.GetData())}
	if err := s.Validate(squares); err != nil {
		// Validate wraps sdk.ErrBadRequest; rewrap with the right side's fault.
		return sdk.States{}, fmt.Errorf("%w: %v", bad, err)
	}
	return s, nil
}

func ruleToProto(r sdk.Rule) pb.CombiningRule {
	switch r {
	case sdk.RuleSumOfMinima:
		return pb.CombiningRule_COMBINING_RULE_SUM_OF_MINIMA
	case sdk.RuleGreedy:
		return pb.CombiningRule_COMBINING_RULE_GREEDY
	case sdk.RuleMatching:
		return pb.CombiningRule_COMBINING_RULE_MATCHING
	}
	return pb.CombiningRule_COMBINING_RULE_UNSPECIFIED
}

func ruleFromProto(r pb.CombiningRule) sdk.Rule {
	switch r {
	case pb.CombiningRule_COMBINING_RULE_SUM_OF_MINIMA:
		return sdk.RuleSumOfMinima
	case pb.CombiningRule_COMBINING_RULE_GREEDY:
		return sdk.RuleGreedy
	case pb.CombiningRule_COMBINING_RULE_MATCHING:
		return sdk.RuleMatching
	}
	return 0
}

// HeuristicTablesToProto converts a heuristic's tables for the wire.
func HeuristicTablesToProto(t *sdk.HeuristicTables) *pb.HeuristicTables {
	p := &pb.HeuristicTables{Costs: packUint16(t.Costs), Rule: ruleToProto(t.Rule)}
	if len(t.SideCosts) > 0 {
		p.SideCosts = packUint16(t.SideCosts)
	}
	for _, pen := range t.Penalties {
		p.Penalties = append(p.Penalties, &pb.Penalty{Squares: IntsToProto(pen.Squares), Cost: uint32(pen.Cost)})
	}
	return p
}

// HeuristicTablesFromProto converts and validates a plugin's heuristic
// tables for a level of squares squares and goals goals.
func HeuristicTablesFromProto(p *pb.HeuristicTables, squares, goals int) (*sdk.HeuristicTables, error) {
	if len(p.GetCosts())%2 != 0 {
		return nil, fmt.Errorf("%w: cost table of odd length %d bytes", sdk.ErrBadAnswer, len(p.GetCosts()))
	}
	if len(p.GetSideCosts())%2 != 0 {
		return nil, fmt.Errorf("%w: side cost table of odd length %d bytes", sdk.ErrBadAnswer, len(p.GetSideCosts()))
	}
	t := &sdk.HeuristicTables{Costs: unpackUint16(p.GetCosts()), Rule: ruleFromProto(p.GetRule())}
	if len(p.GetSideCosts()) > 0 {
		t.SideCosts = unpackUint16(p.GetSideCosts())
	}
	for _, pen := range p.GetPenalties() {
		t.Penalties = append(t.Penalties, sdk.Penalty{Squares: IntsFromProto(pen.GetSquares()), Cost: int(pen.GetCost())})
	}
	if err := t.Validate(squares, goals); err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadAnswer, err)
	}
	return t, nil
}

func directionToProto(d sdk.Direction) pb.Direction { return pb.Direction(d) }

func directionFromProto(d pb.Direction) sdk.Direction {
	if d < pb.Direction_DIRECTION_UNSPECIFIED || d > pb.Direction_DIRECTION_DOWN {
		return sdk.Down + 1 // invalid; Validate rejects it
	}
	return sdk.Direction(d)
}

// RegionLimitToProto converts a region limit for the wire.
func RegionLimitToProto(r sdk.RegionLimit) *pb.RegionLimit {
	b := pb.Bound_BOUND_UNSPECIFIED
	switch r.Bound {
	case sdk.AtMost:
		b = pb.Bound_BOUND_AT_MOST
	case sdk.AtLeast:
		b = pb.Bound_BOUND_AT_LEAST
	}
	return &pb.RegionLimit{Squares: IntsToProto(r.Squares), Bound: b, Boxes: uint32(r.Boxes)}
}

// RegionLimitFromProto converts a region limit from the wire; a bound the
// SDK does not know is left zero, which validation rejects.
func RegionLimitFromProto(p *pb.RegionLimit) sdk.RegionLimit {
	r := sdk.RegionLimit{Squares: IntsFromProto(p.GetSquares()), Boxes: int(p.GetBoxes())}
	switch p.GetBound() {
	case pb.Bound_BOUND_AT_MOST:
		r.Bound = sdk.AtMost
	case pb.Bound_BOUND_AT_LEAST:
		r.Bound = sdk.AtLeast
	}
	return r
}

// DeadlockTablesToProto converts a detector's tables for the wire.
func DeadlockTablesToProto(t *sdk.DeadlockTables) *pb.DeadlockTables {
	p := &pb.DeadlockTables{DeadSquares: IntsToProto(t.DeadSquares)}
	for _, s := range t.Sets {
		p.Sets = append(p.Sets, &pb.DeadlockSet{Squares: IntsToProto(s.Squares), Capacity: uint32(s.Capacity), LastPush: directionToProto(s.LastPush)})
	}
	for _, r := range t.Limits {
		p.Limits = append(p.Limits, RegionLimitToProto(r))
	}
	return p
}

// DeadlockTablesFromProto converts and validates a plugin's deadlock
// tables for a level of squares squares.
func DeadlockTablesFromProto(p *pb.DeadlockTables, squares int) (*sdk.DeadlockTables, error) {
	t := &sdk.DeadlockTables{DeadSquares: IntsFromProto(p.GetDeadSquares())}
	for _, s := range p.GetSets() {
		t.Sets = append(t.Sets, sdk.DeadlockSet{Squares: IntsFromProto(s.GetSquares()), Capacity: int(s.GetCapacity()), LastPush: directionFromProto(s.GetLastPush())})
	}
	for _, r := range p.GetLimits() {
		t.Limits = append(t.Limits, RegionLimitFromProto(r))
	}
	if err := t.Validate(squares); err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadAnswer, err)
	}
	return t, nil
}

// kindNames maps the wire's kinds to the SDK's; it is never modified.
var kindNames = map[pb.Kind]sdk.Kind{
	pb.Kind_KIND_HEURISTIC: sdk.KindHeuristic,
	pb.Kind_KIND_DEADLOCK:  sdk.KindDeadlock,
	pb.Kind_KIND_PLANNER:   sdk.KindPlanner,
}

// capabilityNames maps the wire's capabilities to the SDK's; it is never
// modified.
var capabilityNames = map[pb.Capability]sdk.Capability{
	pb.Capability_CAPABILITY_HEURISTIC_TABLES:     sdk.CapHeuristicTables,
	pb.Capability_CAPABILITY_HEURISTIC_ESTIMATE:   sdk.CapHeuristicEstimate,
	pb.Capability_CAPABILITY_HEURISTIC_ADMISSIBLE: sdk.CapAdmissible,
	pb.Capability_CAPABILITY_DEADLOCK_TABLES:      sdk.CapDeadlockTables,
	pb.Capability_CAPABILITY_DEADLOCK_CHECK:       sdk.CapDeadlockCheck,
	pb.Capability_CAPABILITY_PLANNER_HOST:         sdk.CapPlannerHost,
}

// InfoToProto converts a plugin's description for the wire.
func InfoToProto(i *sdk.Info) (*pb.InfoResponse, error) {
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

// InfoFromProto converts a plugin's Info answer. Kinds and capabilities from
// a newer protocol revision are kept under a descriptive name, so listings
// show them, but Validate fails on kinds this host does not know.
func InfoFromProto(p *pb.InfoResponse) (*sdk.Info, error) {
	i := &sdk.Info{Name: p.GetName(), Version: p.GetVersion(), Summary: p.GetSummary()}
	for _, k := range p.GetKinds() {
		name, ok := kindNames[k]
		if !ok {
			return nil, fmt.Errorf("%w: unknown kind %d", sdk.ErrBadAnswer, k)
		}
		i.Kinds = append(i.Kinds, name)
	}
	for _, c := range p.GetCapabilities() {
		name, ok := capabilityNames[c]
		if !ok {
			name = sdk.Capability(fmt.Sprintf("capability-%d", c))
		}
		i.Capabilities = append(i.Capabilities, name)
	}
	if err := i.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadAnswer, err)
	}
	return i, nil
}

// BudgetToProto converts a budget for the wire.
func BudgetToProto(b sdk.Budget) *pb.Budget {
	p := &pb.Budget{Nodes: b.Nodes, MemoryBytes: b.MemoryBytes}
	if b.Time > 0 {
		p.Time = durationpb.New(b.Time)
	}
	return p
}

// BudgetFromProto converts a budget from the wire.
func BudgetFromProto(p *pb.Budget) sdk.Budget {
	b := sdk.Budget{Nodes: p.GetNodes(), MemoryBytes: p.GetMemoryBytes()}
	if p.GetTime() != nil {
		b.Time = p.GetTime().AsDuration()
	}
	return b
}

// pushBytes is the size of one packed push: square (uint16) and direction.
const pushBytes = 3

// PackPushes packs pushes for the wire, pushBytes each.
func PackPushes(ps []sdk.Push) []byte {
	b := make([]byte, pushBytes*len(ps))
	for i, p := range ps {
		binary.LittleEndian.PutUint16(b[pushBytes*i:], p.Box)
		b[pushBytes*i+2] = byte(p.Dir)
	}
	return b
}

// UnpackPushes unpacks pushes and checks their squares against squares
// and their directions. bad is the sentinel to wrap.
func UnpackPushes(b []byte, squares int, bad error) ([]sdk.Push, error) {
	if len(b)%pushBytes != 0 {
		return nil, fmt.Errorf("%w: push data of %d bytes is not a whole number of pushes", bad, len(b))
	}
	ps := make([]sdk.Push, len(b)/pushBytes)
	for i := range ps {
		ps[i] = sdk.Push{Box: binary.LittleEndian.Uint16(b[pushBytes*i:]), Dir: sokoban.Direction(b[pushBytes*i+2])}
		if int(ps[i].Box) >= squares || ps[i].Dir > sokoban.Down {
			return nil, fmt.Errorf("%w: push %d moves square %d in direction %d", bad, i, ps[i].Box, ps[i].Dir)
		}
	}
	return ps, nil
}
