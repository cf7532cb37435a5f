package engine

import (
	"context"
	"errors"
)

// The search's context ends it: when it is cancelled, or when its deadline
// passes (the solver gives it the search's deadline). Between expansions
// checkBudget looks at it, and within one expansion the steps whose cost
// grows with the number of boxes look too, through overdue: on a board with
// thousands of boxes one expansion, or the start's matching, takes seconds.
// A step that sees the context ended leaves its work unfinished and the
// search ends as gave up, never deciding anything on the unfinished work.

// watch makes ctx the search's context.
func (s *searcher) watch(ctx context.Context) {
	s.ctx, s.done = ctx, ctx.Done()
	if s.ev.m != nil {
		s.ev.m.done = s.done
	}
}

// overdue reports whether the search's context has ended.
func (s *searcher) overdue() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// endReason is why a search whose context ended gave up.
func (s *searcher) endReason() string {
	if s.ctx != nil && errors.Is(s.ctx.Err(), context.DeadlineExceeded) {
		return ReasonDeadline
	}
	return ReasonCancelled
}
