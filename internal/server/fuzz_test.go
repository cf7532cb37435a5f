package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/sokod/sokod/internal/registry"
	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// FuzzRequests decodes arbitrary bytes as the daemon decodes requests
// (requestCodec) and handles them as far as a call goes before a search:
// a Solve request's level and options, Verify and Analyze whole. Nothing
// may panic, and a Verify that says valid must have a solved replay.
func FuzzRequests(f *testing.F) {
	seeds := [][]byte{
		mustMarshal(&sokodv1.SolveRequest{Level: "#####\n#@$.#\n#####\n", Options: &sokodv1.SolveOptions{Heuristic: "simple", TimeLimit: nil, MemoryLimitBytes: 32 << 20}}),
		mustMarshal(&sokodv1.VerifyRequest{Level: "######\n#@ $.#\n######\n", Solution: "2(rl)rR"}),
		mustMarshal(&sokodv1.AnalyzeRequest{Level: "#######\n#@ $ .#\n# $ . #\n#######\n", Position: &sokodv1.Position{
			Player: &sokodv1.Square{X: 1, Y: 1}, Boxes: []*sokodv1.Square{{X: 3, Y: 1}, {X: 2, Y: 2}}}}),
		{0x0a, 0x03, 0x23, 0xff, 0x0a},
	}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	s, err := New(Options{Components: registry.New(nil, nil), Limits: Limits{Time: 2 * time.Second, Memory: 64 << 20}, MaxJobs: 1})
	if err != nil {
		f.Fatal(err)
	}
	v := &service{s: s}
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		ctx := context.Background()
		switch kind % 3 {
		case 0:
			req := &sokodv1.SolveRequest{}
			if (requestCodec{}).Unmarshal(b, req) != nil {
				return
			}
			if _, lerr := parseLevel(req.GetLevel(), req.GetLevelNumber()); lerr != nil {
				return
			}
			_, _ = s.resolve(ctx, req.GetOptions())
		case 1:
			req := &sokodv1.VerifyRequest{}
			if (requestCodec{}).Unmarshal(b, req) != nil {
				return
			}
			resp, err := v.Verify(ctx, req)
			if err == nil && resp.GetValid() && !resp.GetMetrics().GetSolved() {
				t.Fatalf("valid but not solved: %v", resp)
			}
		case 2:
			req := &sokodv1.AnalyzeRequest{}
			if (requestCodec{}).Unmarshal(b, req) != nil {
				return
			}
			_, _ = v.Analyze(ctx, req)
		}
	})
}

func mustMarshal(m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}
