package server

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/solver"
)

// TestBatchCounts: progress reports and the result's statistics carry the
// search's batches and the time it waited for them, and leave them unset
// without batch components.
func TestBatchCounts(t *testing.T) {
	type counts struct {
		Batches int64
		Wait    time.Duration
	}
	for _, want := range []counts{{}, {Batches: 7, Wait: 3 * time.Millisecond}} {
		p := progressProto(solver.Event{Phase: solver.PhaseSearch, Batches: want.Batches, BatchWait: want.Wait})
		got := counts{p.GetBatches(), p.GetBatchWait().AsDuration()}
		if diff := cmp.Diff(want, got); diff != "" || (want.Batches == 0) != (p.GetBatchWait() == nil) {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
		r := resultProto(&solver.Result{Status: engine.GaveUp, Search: engine.Stats{Batches: want.Batches, BatchWait: want.Wait}})
		got = counts{r.GetStats().GetBatches(), r.GetStats().GetBatchWait().AsDuration()}
		if diff := cmp.Diff(want, got); diff != "" || (want.Batches == 0) != (r.GetStats().GetBatchWait() == nil) {
			t.Errorf("result statistics (-want +got):\n%s", diff)
		}
	}
}
