package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginclient"
)

// The components of a plugin under supervision: every call goes through
// Plugin.call, which times it out, classifies its failure and restarts the
// plugin when it is broken.

// Heuristic returns the plugin's heuristic under supervision.
func (p *Plugin) Heuristic() sdk.Heuristic { return supHeuristic{p} }

// Deadlocks returns the plugin's deadlock detector under supervision.
func (p *Plugin) Deadlocks() sdk.DeadlockDetector { return supDeadlocks{p} }

// Planner returns the plugin's planner under supervision. A plan is bounded
// by its budget's time plus the call timeout rather than by the call
// timeout alone.
func (p *Plugin) Planner() sdk.Planner { return supPlanner{p} }

type supHeuristic struct{ p *Plugin }

func (s supHeuristic) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	var h *sdk.PreparedHeuristic
	gen, err := s.p.call(ctx, "prepare heuristic", 0, s.p.host.opts.CallTimeout, func(ctx context.Context, c *pluginclient.Client) error {
		var err error
		h, err = c.Heuristic().Prepare(ctx, l)
		return err
	})
	if err != nil {
		return nil, err
	}
	if h.Estimator != nil {
		h.Estimator = &supEstimator{p: s.p, gen: gen, e: h.Estimator}
	}
	return h, nil
}

type supEstimator struct {
	p   *Plugin
	gen uint64
	e   sdk.Estimator
}

func (s *supEstimator) Estimate(ctx context.Context, states sdk.States, out []uint32) error {
	return s.p.sessionCall(ctx, "estimate", s.gen, func(ctx context.Context) error { return s.e.Estimate(ctx, states, out) })
}

func (s *supEstimator) Release(ctx context.Context) error {
	return s.p.releaseSession(ctx, "release heuristic", s.gen, s.e.Release)
}

type supDeadlocks struct{ p *Plugin }

func (s supDeadlocks) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedDeadlocks, error) {
	var d *sdk.PreparedDeadlocks
	gen, err := s.p.call(ctx, "prepare deadlocks", 0, s.p.host.opts.CallTimeout, func(ctx context.Context, c *pluginclient.Client) error {
		var err error
		d, err = c.Deadlocks().Prepare(ctx, l)
		return err
	})
	if err != nil {
		return nil, err
	}
	if d.Checker != nil {
		d.Checker = &supChecker{p: s.p, gen: gen, c: d.Checker}
	}
	return d, nil
}

type supChecker struct {
	p   *Plugin
	gen uint64
	c   sdk.Checker
}

func (s *supChecker) Check(ctx context.Context, states sdk.States, out []bool) error {
	return s.p.sessionCall(ctx, "check", s.gen, func(ctx context.Context) error { return s.c.Check(ctx, states, out) })
}

func (s *supChecker) Release(ctx context.Context) error {
	return s.p.releaseSession(ctx, "release deadlocks", s.gen, s.c.Release)
}

// sessionCall runs f, a call on a prepared session of the plugin process of
// generation gen, under supervision.
func (p *Plugin) sessionCall(ctx context.Context, op string, gen uint64, f func(context.Context) error) error {
	_, err := p.call(ctx, op, gen, p.host.opts.CallTimeout, func(ctx context.Context, _ *pluginclient.Client) error {
		return f(ctx)
	})
	return err
}

// releaseSession releases a prepared session; a session whose process is
// gone went with it, so that is no error.
func (p *Plugin) releaseSession(ctx context.Context, op string, gen uint64, release func(context.Context) error) error {
	if err := p.sessionCall(ctx, op, gen, release); !errors.Is(err, ErrStale) {
		return err
	}
	return nil
}

type supPlanner struct{ p *Plugin }

func (s supPlanner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	var timeout time.Duration
	if req.Budget.Time > 0 {
		timeout = req.Budget.Time + s.p.host.opts.CallTimeout
	}
	var res *sdk.PlanResult
	_, err := s.p.call(ctx, "plan", 0, timeout, func(ctx context.Context, c *pluginclient.Client) error {
		var err error
		res, err = c.Planner().Plan(ctx, req, host, progress)
		return err
	})
	return res, err
}
