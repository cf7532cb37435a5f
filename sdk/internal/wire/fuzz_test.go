package wire

import (
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
)

// FuzzPluginAnswers decodes arbitrary bytes as a plugin's answers (Info,
// heuristic and deadlock tables, state batches, pushes) and as the host's
// level, and converts them as the host and a plugin do. Nothing may panic,
// and what a conversion accepts must be valid: the host builds its tables
// and searches from it.
func FuzzPluginAnswers(f *testing.F) {
	const squares, goals = 10, 2
	seed := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(uint8(0), seed(&pb.InfoResponse{Name: "x", Version: "1", Kinds: []pb.Kind{pb.Kind_KIND_HEURISTIC},
		Capabilities: []pb.Capability{pb.Capability_CAPABILITY_HEURISTIC_TABLES}}))
	f.Add(uint8(1), seed(&pb.HeuristicTables{Costs: make([]byte, 2*squares*goals), Rule: pb.CombiningRule_COMBINING_RULE_MATCHING,
		Penalties: []*pb.Penalty{{Squares: []uint32{1, 2}, Cost: 3}}}))
	f.Add(uint8(2), seed(&pb.DeadlockTables{DeadSquares: []uint32{0, 9}, Sets: []*pb.DeadlockSet{{Squares: []uint32{3, 4}, Capacity: 1}}}))
	f.Add(uint8(3), seed(&pb.StateBatch{Boxes: 2, Data: make([]byte, 12)}))
	f.Add(uint8(4), []byte{1, 0, 2, 3, 0, 1})
	f.Add(uint8(5), seed(&pb.Level{Width: 7, Height: 4, Squares: []uint32{8, 9, 10, 11, 12, 15, 16, 17, 18, 19}, Goals: []uint32{4, 8},
		Boxes: []uint32{2, 6}, Xsb: "#######\n#@ $ .#\n# $ . #\n#######\n"}))
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		switch kind % 6 {
		case 0:
			m := &pb.InfoResponse{}
			if proto.Unmarshal(b, m) != nil {
				return
			}
			if i, err := InfoFromProto(m); err == nil && i.Validate() != nil {
				t.Fatalf("accepted an invalid Info %+v", i)
			}
		case 1:
			m := &pb.HeuristicTables{}
			if proto.Unmarshal(b, m) != nil {
				return
			}
			if h, err := HeuristicTablesFromProto(m, squares, goals); err == nil && h.Validate(squares, goals) != nil {
				t.Fatalf("accepted invalid heuristic tables %+v", h)
			}
		case 2:
			m := &pb.DeadlockTables{}
			if proto.Unmarshal(b, m) != nil {
				return
			}
			if d, err := DeadlockTablesFromProto(m, squares); err == nil && d.Validate(squares) != nil {
				t.Fatalf("accepted invalid deadlock tables %+v", d)
			}
		case 3:
			m := &pb.StateBatch{}
			if proto.Unmarshal(b, m) != nil {
				return
			}
			if s, err := StatesFromProto(m, squares, sdk.ErrBadAnswer); err == nil {
				for i := range s.Len() {
					_ = s.BoxSquares(i)
					_ = s.Player(i)
				}
			}
		case 4:
			if ps, err := UnpackPushes(b, squares, sdk.ErrBadAnswer); err == nil {
				for _, p := range ps {
					if int(p.Box) >= squares {
						t.Fatalf("accepted a push of square %d", p.Box)
					}
				}
			}
		case 5:
			m := &pb.Level{}
			if proto.Unmarshal(b, m) != nil {
				return
			}
			if l, err := LevelFromProto(m); err == nil && l.Validate() != nil {
				t.Fatalf("accepted an invalid level %+v", l)
			}
		}
	})
}
