package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetrics: with listen.metrics set the daemon serves Prometheus
// metrics on that loopback address: its jobs, solves by status, refusals,
// its plugins, and the process's memory.
func TestMetrics(t *testing.T) {
	sock := filepath.Join(shortDir(t), "s.sock")
	addr := freePort(t)
	startDaemon(t, sock, "SOKOD_LISTEN_METRICS="+addr)
	if r := runBin(t, nil, "solve", example, "--remote", "unix://"+sock); r.code != 0 {
		t.Fatalf("solve --remote: exit %d\n%s", r.code, r.stderr)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	for _, want := range []string{
		"sokod_jobs_running 0", "sokod_jobs_queued 0", `sokod_solves_total{status="solved"} 1`,
		"sokod_jobs_refused_total", "sokod_jobs_memory_reserved_bytes", "sokod_grpc_calls_total",
		"process_resident_memory_bytes", "sokod_process_peak_resident_memory_bytes", "go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
