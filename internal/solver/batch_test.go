package solver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sokod/sokod/internal/engine"
)

// batchHeuristic prepares a heuristic that answers in batches with est,
// which must also count its releases.
type batchHeuristic struct{ est *countingEstimator }

func (h batchHeuristic) Prepare(context.Context, *engine.Board) (*engine.Heuristic, error) {
	return &engine.Heuristic{Name: "batch", Estimator: h.est}, nil
}

// countingEstimator answers every position with 0, or fails from its
// failAt-th call on (0: never), and counts its calls and releases.
type countingEstimator struct {
	failAt, calls, released int
}

func (e *countingEstimator) Estimate(_ context.Context, _ engine.Batch, out []uint32) error {
	e.calls++
	if e.failAt > 0 && e.calls >= e.failAt {
		return errors.New("the model is gone")
	}
	clear(out)
	return nil
}

func (e *countingEstimator) Release(context.Context) error {
	e.released++
	return nil
}

// TestBatchHeuristic: the solver hands the batch size to the search,
// reports the batches in its statistics, releases the
// estimator once, and turns its failure into a ComponentError.
func TestBatchHeuristic(t *testing.T) {
	l := level(t, "#######\n#@ $ .#\n# $ . #\n#     #\n#######\n")
	t.Run("ok", func(t *testing.T) {
		est := &countingEstimator{}
		res, err := Solve(context.Background(), Request{Level: l, Heuristic: batchHeuristic{est}, BatchSize: 2,
			Budget: Budget{Memory: 64 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != engine.Solved {
			t.Fatalf("%v: %s", res.Status, res.Reason)
		}
		if res.Search.Batches != int64(est.calls) || est.calls < 2 || res.Search.BatchStates > 2*res.Search.Batches {
			t.Errorf("%d batches of %d positions reported, %d calls made; want batches of at most 2", res.Search.Batches, res.Search.BatchStates, est.calls)
		}
		if est.released != 1 {
			t.Errorf("released %d times, want once", est.released)
		}
	})
	t.Run("fails", func(t *testing.T) {
		est := &countingEstimator{failAt: 2}
		_, err := Solve(context.Background(), Request{Level: l, Heuristic: batchHeuristic{est}, BatchSize: 2, Budget: Budget{Memory: 64 << 20}})
		var ce *ComponentError
		if !errors.As(err, &ce) || ce.What != "heuristic" || !strings.Contains(err.Error(), "the model is gone") {
			t.Fatalf("got %v, want a ComponentError for the heuristic", err)
		}
		if est.released != 1 {
			t.Errorf("released %d times, want once", est.released)
		}
	})
}
