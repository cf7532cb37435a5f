package server

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// rowsLevel is a level with rows of boxes, each row's goals at its other
// end: its analysis takes seconds at 3000 boxes.
func rowsLevel(rows, boxes, width int) string {
	var sb strings.Builder
	sb.WriteString(strings.Repeat("#", width) + "\n")
	sb.WriteString("#@" + strings.Repeat(" ", width-3) + "#\n")
	for range rows {
		sb.WriteString("# " + strings.Repeat("$", boxes) + strings.Repeat(" ", width-3-2*boxes) + strings.Repeat(".", boxes) + "#\n")
		sb.WriteString("#" + strings.Repeat(" ", width-2) + "#\n")
	}
	sb.WriteString(strings.Repeat("#", width) + "\n")
	return sb.String()
}

// cpuTime is the process's CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAnalyzeIsAdmitted: Analyze takes a slot as a solve does, so with
// every slot taken and no queue it is refused (it ran beside the solves,
// six at once costing 49 CPU seconds and 3.6 GB).
func TestAnalyzeIsAdmitted(t *testing.T) {
	ts := startServer(t, Options{MaxJobs: 1, Queue: 0})
	ctx := testContext(t)
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	startLong(t, jctx, ts.client)
	_, err := ts.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: "#####\n#@$.#\n#####\n"})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("Analyze with every slot taken: %v, want ResourceExhausted", err)
	}
	stop()
	waitIdle(t, ctx, ts.client)
	if _, err := ts.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: "#####\n#@$.#\n#####\n"}); err != nil {
		t.Errorf("Analyze with a free slot: %v", err)
	}
}

// TestAnalyzeStopsWithItsClient: an Analyze of a level whose analysis
// takes seconds stops when its client gives up (it went on to the end).
func TestAnalyzeStopsWithItsClient(t *testing.T) {
	ts := startServer(t, Options{Limits: Limits{Time: time.Minute, Memory: 1 << 30}})
	level := rowsLevel(60, 50, 128) // 3000 boxes
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	if _, err := ts.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: level}); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Analyze: %v, want the client's deadline", err)
	}
	// The server's side of the cancel: the analysis gives its slot back
	// when it has stopped, at its next check of the context; the whole
	// analysis takes many times as long under the race detector.
	idle, stopIdle := context.WithTimeout(testContext(t), 10*time.Second)
	defer stopIdle()
	waitIdle(t, idle, ts.client)
	before := cpuTime(t)
	time.Sleep(time.Second)
	if used := cpuTime(t) - before; used > 300*time.Millisecond {
		t.Errorf("the daemon used %v of CPU in the second after the client left", used)
	}
	waitIdle(t, testContext(t), ts.client)
}
