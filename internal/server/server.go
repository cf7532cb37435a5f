// Package server is the sokod daemon: the gRPC service of proto/sokod/v1
// (SolverService) with the standard health and reflection services, the
// same service over HTTP with Connect (Connect, gRPC-Web and gRPC) beside
// the embedded web app, job admission (a bounded number of running solves
// within a memory cap, a bounded queue, RESOURCE_EXHAUSTED past it),
// streaming progress, watching a job by id, cancellation, and a graceful
// stop.
//
// Each Solve call is one job, run through internal/solver by a goroutine
// of its own; the call, like any Watch of the job, streams what the job
// records (progress, then its result). A job's context ends on Cancel, at
// shutdown, or when its client closes the stream (unless the job is
// detached), and such a call returns only after the solver has, so when a
// job leaves the job table its memory is no longer referenced and its
// goroutines are gone. Ended jobs are kept a while for Watch.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/solver"
	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// Components resolves solve components by name; *registry.Registry is
// one. Tests pass fakes that wrap a registry of built-ins.
type Components interface {
	// Heuristic resolves a heuristic; "" is the default.
	Heuristic(ctx context.Context, name string) (*registry.Heuristic, error)
	// Deadlocks resolves a deadlock detector.
	Deadlocks(ctx context.Context, name string) (*registry.Deadlocks, error)
	// Planner resolves a planner.
	Planner(ctx context.Context, name string) (*registry.Planner, error)
	// List lists every component for ListComponents.
	List() []registry.Component
}

// Limits are the daemon's per-solve limits: the defaults of a request that
// sets none, and the most a request may ask for.
type Limits struct {
	// Time bounds a solve's wall-clock time; it must be positive.
	Time time.Duration
	// Memory bounds a solve's memory; it must be positive.
	Memory int64
	// Nodes bounds a search's expansions; 0 means no bound.
	Nodes int64
}

// Options configure a Server. Components, Limits.Time and Limits.Memory are
// required.
type Options struct {
	Components Components
	Limits     Limits
	// Planners run, in order, when the exhaustive search gives up and the
	// request does not say otherwise (fallback.planners).
	Planners []string
	// SearchShare is fallback.search_share; 0 means the solver's default.
	SearchShare int
	// PlannerShare is fallback.planner_share; 0 means the solver's default.
	PlannerShare int
	// Portfolio is fallback.portfolio: planners run beside the search, so
	// a job keeps two cores busy.
	Portfolio bool
	// BatchSize is search.batch_size: positions per call to a component
	// that answers in batches; 0 means the engine's default.
	BatchSize int
	// Store, when set, is the solution store every solve consults and adds
	// to (store.path); a solve it answers has found_by "store".
	Store solver.Store
	// MaxJobs is how many solves run at once; 0 means runtime.NumCPU().
	MaxJobs int
	// Queue is how many solves may wait for a slot.
	Queue int
	// MemoryCap bounds the summed memory budgets of running solves; 0 means
	// no cap.
	MemoryCap int64
	// ShutdownTimeout bounds the graceful stop; 0 means 10s.
	ShutdownTimeout time.Duration
	// MaxRequestBytes bounds one request's encoded size, over gRPC and
	// HTTP; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int
	// Token, when set, is the secret a call on TCP must carry (see
	// identity.go); the daemon writes it to a file only its user can read.
	// gRPC over TCP is refused without it.
	Token string
	// Version is the daemon's version, as GetServerInfo reports it.
	Version string
	// Web, when set, is served at / on the HTTP listeners (the embedded
	// web app).
	Web http.Handler
	// Log receives the daemon's log; nil means none.
	Log hclog.Logger
	// Clock is the injected clock; nil means time.Now.
	Clock func() time.Time
}

// DefaultMaxRequestBytes is the request size limit when Options leaves it
// unset: gRPC's default, far above the largest level or solution.
const DefaultMaxRequestBytes = 4 << 20

// handshakeTimeout bounds a new connection's handshake; clients on the
// same host complete it in microseconds.
const handshakeTimeout = 5 * time.Second

// Server is the daemon's gRPC server: SolverService, health and reflection
// on one grpc.Server that serves every listener.
type Server struct {
	opts    Options
	log     hclog.Logger
	clock   func() time.Time
	started time.Time
	jobs    *jobs
	metrics *metrics
	grpc    *grpc.Server
	health  *health.Server
	// runners are the jobs' goroutines; a stop waits for them.
	runners sync.WaitGroup
	// release gives memory back once the daemon is idle (releaseMemory).
	releaseMu sync.Mutex
	release   *time.Timer
}

// New returns a Server; Serve runs it.
func New(opts Options) (*Server, error) {
	if opts.Components == nil {
		return nil, errors.New("server: no components")
	}
	if opts.Limits.Time <= 0 || opts.Limits.Memory <= 0 {
		return nil, fmt.Errorf("server: limits must be positive (time %v, memory %d)", opts.Limits.Time, opts.Limits.Memory)
	}
	if opts.MemoryCap != 0 && opts.MemoryCap < opts.Limits.Memory {
		return nil, fmt.Errorf("server: memory cap %d below the per-solve memory %d: no solve could start", opts.MemoryCap, opts.Limits.Memory)
	}
	if opts.MaxJobs <= 0 {
		opts.MaxJobs = runtime.NumCPU()
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	if opts.Queue < 0 {
		opts.Queue = 0
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	s := &Server{opts: opts, log: opts.Log, clock: opts.Clock}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.started = s.clock()
	s.jobs = newJobs(opts.MaxJobs, opts.Queue, opts.MemoryCap, s.clock)
	s.metrics = newMetrics(s.jobs)
	// A connection that has not completed its HTTP/2 handshake within
	// handshakeTimeout is dropped: garbage written to the socket costs the
	// daemon a goroutine for that long at most (grpc's default is 120s).
	s.grpc = grpc.NewServer(grpc.ConnectionTimeout(handshakeTimeout), grpc.MaxRecvMsgSize(opts.MaxRequestBytes),
		grpc.Creds(peerCreds{}), grpc.ForceServerCodec(requestCodec{}), grpc.ChainUnaryInterceptor(s.unaryIdentity, s.unaryLog), grpc.ChainStreamInterceptor(s.streamIdentity, s.streamLog))
	sokodv1.RegisterSolverServiceServer(s.grpc, &service{s: s})
	s.health = health.NewServer()
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(sokodv1.SolverService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	return s, nil
}

// httpListener marks a listener served over HTTP.
type httpListener struct{ net.Listener }

// HTTP marks l to be served over HTTP by Serve: SolverService with Connect
// (the Connect protocol, gRPC-Web, and gRPC over HTTP/2 without TLS) and
// Options.Web at /. Unmarked listeners serve gRPC.
func HTTP(l net.Listener) net.Listener { return httpListener{l} }

// Serve serves on every listener until ctx ends, then stops: health turns
// NOT_SERVING, new solves are refused, every queued and running job is
// cancelled (its client receives a CANCELLED result), and the calls in
// flight are given ShutdownTimeout to finish before the remaining
// connections are closed. It returns nil after a stop on ctx, or the first
// listener's error (having stopped the same way). The listeners are closed
// when it returns. Listeners marked by HTTP serve HTTP, the others gRPC.
func (s *Server) Serve(ctx context.Context, listeners ...net.Listener) error {
	if len(listeners) == 0 {
		return errors.New("server: no listener")
	}
	s.log.Info("serving", "max_jobs", s.opts.MaxJobs, "queue", s.opts.Queue, "memory_cap", s.opts.MemoryCap,
		"time", s.opts.Limits.Time, "memory", s.opts.Limits.Memory)
	hs := s.httpServer()
	errc := make(chan error, len(listeners))
	var wg sync.WaitGroup
	for _, l := range listeners {
		wg.Go(func() {
			var err error
			if hl, ok := l.(httpListener); ok {
				if err = hs.Serve(hl.Listener); errors.Is(err, http.ErrServerClosed) {
					err = nil
				}
			} else if err = s.grpc.Serve(l); errors.Is(err, grpc.ErrServerStopped) {
				err = nil
			}
			if err != nil {
				err = fmt.Errorf("serve %s: %w", l.Addr(), err)
			}
			errc <- err
		})
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.stop(hs)
	wg.Wait()
	return err
}

// stop is the shutdown sequence of Serve.
func (s *Server) stop(hs *http.Server) {
	s.log.Info("stopping: cancelling jobs", "timeout", s.opts.ShutdownTimeout)
	s.health.Shutdown()
	s.jobs.close()
	stopped := make(chan struct{})
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	go func() {
		var wg sync.WaitGroup
		wg.Go(s.grpc.GracefulStop)
		wg.Go(func() {
			if err := hs.Shutdown(sctx); err != nil {
				_ = hs.Close()
			}
		})
		// Detached jobs have no call to wait for them.
		wg.Go(s.runners.Wait)
		wg.Wait()
		close(stopped)
	}()
	s.stopRelease()
	select {
	case <-stopped:
		s.log.Info("stopped")
	case <-sctx.Done():
		s.log.Warn("graceful stop timed out; closing the remaining connections")
		s.grpc.Stop()
		_ = hs.Close()
		<-stopped
	}
}

// releaseMemory gives the memory the Go heap keeps for reuse back to the
// system soon after the last job ends (releaseDelay, so that a burst of
// small jobs does not pay for a full collection each): the jobs' tables
// are garbage then, and the runtime would otherwise return it over
// minutes. The search's own table is given back as the search ends
// (engine.Workspace).
func (s *Server) releaseMemory() {
	if s.jobs.counts().running > 0 {
		return
	}
	s.releaseMu.Lock()
	defer s.releaseMu.Unlock()
	if s.release == nil {
		s.release = time.AfterFunc(releaseDelay, func() {
			if s.jobs.counts().running == 0 {
				debug.FreeOSMemory()
			}
		})
		return
	}
	s.release.Reset(releaseDelay)
}

// releaseDelay is how long the daemon stays idle before it gives memory
// back.
const releaseDelay = 500 * time.Millisecond

// stopRelease stops a pending release, at shutdown.
func (s *Server) stopRelease() {
	s.releaseMu.Lock()
	defer s.releaseMu.Unlock()
	if s.release != nil {
		s.release.Stop()
	}
}
