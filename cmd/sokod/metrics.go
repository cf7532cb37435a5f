package main

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sokod/sokod/internal/server"
	"github.com/sokod/sokod/internal/supervisor"
)

// metricsRegistry gathers the daemon's Prometheus metrics: its jobs and
// calls, its plugins, the Go runtime and the process (resident memory,
// and its peak where the system reports it).
func metricsRegistry(srv *server.Server, host *supervisor.Supervisor) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(srv.Collectors()...)
	reg.MustRegister(supervisor.Collector(host),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sokod_process_peak_resident_memory_bytes",
			Help: "The most resident memory the process has had (VmHWM)."}, peakResident),
	)
	return reg
}

// peakResident returns the process's peak resident memory from
// /proc/self/status, 0 where there is none.
func peakResident() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// serveMetrics serves reg at /metrics on addr, a loopback address
// (config.Validate checked it), until ctx ends.
func serveMetrics(ctx context.Context, env *Env, addr string, reg *prometheus.Registry) error {
	l, err := server.ListenTCP(addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: env.Log.StandardLogger(nil)}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	go func() {
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			env.Log.Error("metrics", "error", err)
		}
	}()
	env.Log.Info("listening", "metrics", "http://"+l.Addr().String()+"/metrics")
	return nil
}
