package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/codes"
)

// metrics are the daemon's Prometheus metrics of its jobs and calls. They
// count whether or not anything collects them; Server.Collectors hands
// them to a registry.
type metrics struct {
	refused *prometheus.CounterVec // admissions refused, by reason
	solves  *prometheus.CounterVec // jobs ended, by status
	calls   *prometheus.CounterVec // gRPC calls ended, by method and code
	gauges  []prometheus.Collector
}

func newMetrics(j *jobs) *metrics {
	m := &metrics{
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sokod_jobs_refused_total",
			Help: "Solves and analyses refused admission, by reason (queue_full, shutting_down, memory_budget)."}, []string{"reason"}),
		solves: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sokod_solves_total",
			Help: "Solves ended, by result status (solved, unsolvable, gave_up, cancelled, invalid_level, failed)."}, []string{"status"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sokod_grpc_calls_total",
			Help: "gRPC calls ended, by method and status code."}, []string{"method", "code"}),
	}
	// Every known label at 0, so that the series exist before the first
	// event and a rate over them starts from nothing.
	for _, r := range []string{"queue_full", "shutting_down", "memory_budget"} {
		m.refused.WithLabelValues(r)
	}
	for _, st := range []string{"solved", "unsolvable", "gave_up", "cancelled", "invalid_level", "failed"} {
		m.solves.WithLabelValues(st)
	}
	gauge := func(name, help string, f func(snapshot) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return f(j.counts()) })
	}
	m.gauges = []prometheus.Collector{
		gauge("sokod_jobs_running", "Solves and analyses running.", func(s snapshot) float64 { return float64(s.running) }),
		gauge("sokod_jobs_queued", "Solves and analyses waiting for a slot.", func(s snapshot) float64 { return float64(s.queued) }),
		gauge("sokod_jobs_memory_reserved_bytes", "Summed memory budgets of the running jobs.", func(s snapshot) float64 { return float64(s.reserved) }),
		gauge("sokod_jobs_memory_cap_bytes", "server.memory_cap; 0 when there is none.", func(s snapshot) float64 { return float64(s.memCap) }),
		gauge("sokod_jobs_max", "server.max_jobs: jobs that run at once.", func(s snapshot) float64 { return float64(s.maxJobs) }),
	}
	return m
}

// call counts a gRPC call that ended with code.
func (m *metrics) call(method string, code codes.Code) {
	m.calls.WithLabelValues(method, code.String()).Inc()
}

// Collectors returns the daemon's metrics, for a Prometheus registry:
// jobs running, queued and refused, solves by status, calls, and the
// memory the jobs reserve. The plugin host and the process have their own.
func (s *Server) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{s.metrics.refused, s.metrics.solves, s.metrics.calls}, s.metrics.gauges...)
}
