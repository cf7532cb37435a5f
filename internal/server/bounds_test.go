package server

import (
	"runtime"
	"strings"
	"testing"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// allocated returns the bytes the process allocates while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRequestsDoNotAmplify sends requests built to make the daemon expand
// them: a 4 MiB line of walls (it cost the daemon 311 MB) and a 14-byte
// solution of ten million steps (50 MB). Each costs a small multiple of
// its size, gRPC's buffers included.
func TestRequestsDoNotAmplify(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	wide := strings.Repeat("#", 4<<20-1024)
	got := allocated(func() {
		stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: wide})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := recvAll(stream)
		if err != nil {
			t.Fatal(err)
		}
		if ev.result.GetStatus() != sokodv1.Status_STATUS_INVALID_LEVEL {
			t.Errorf("a 4 MiB row: %v, want an invalid level", ev.result)
		}
	})
	if got > 32<<20 {
		t.Errorf("a 4 MiB request allocated %d MiB", got>>20)
	}
	got = allocated(func() {
		resp, err := ts.client.Verify(ctx, &sokodv1.VerifyRequest{Level: "######\n#@ $.#\n######\n", Solution: "1000(4999(rl))rR"})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.GetValid() || resp.GetMetrics().GetMoves() != 9_998_002 {
			t.Errorf("Verify: %v, want valid with 9998002 moves", resp)
		}
	})
	if got > 4<<20 {
		t.Errorf("verifying ten million steps allocated %d MiB", got>>20)
	}
}
