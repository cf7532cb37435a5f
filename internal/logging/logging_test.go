package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestNewJSON(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "debug", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("board analysed", "squares", 42)
	log.Trace("not shown at debug")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want 1:\n%s", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, lines[0])
	}
	for key, want := range map[string]any{
		"@message": "board analysed",
		"@level":   "debug",
		"@module":  "sokod",
		"squares":  float64(42),
	} {
		if rec[key] != want {
			t.Errorf("%s = %#v, want %#v (record %v)", key, rec[key], want, rec)
		}
	}
}

func TestNewText(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden at the default level")
	log.Info("listening", "socket", "/run/sokod.sock")
	out := buf.String()
	if strings.Contains(out, "hidden") {
		t.Errorf("debug record written at the default level:\n%s", out)
	}
	if !strings.Contains(out, "[INFO]  sokod: listening: socket=/run/sokod.sock") {
		t.Errorf("unexpected text output:\n%s", out)
	}
}

func TestNewLevels(t *testing.T) {
	for _, level := range []string{"trace", "debug", "info", "warn", "error", "off"} {
		if _, err := New(&bytes.Buffer{}, level, "text"); err != nil {
			t.Errorf("New(level %q): %v", level, err)
		}
	}
}

func TestNewBadInput(t *testing.T) {
	tests := []struct{ level, format, want string }{
		{"loud", "text", `logging: unknown level "loud"`},
		{"INFO", "text", `logging: unknown level "INFO"`},
		{"warning", "json", `logging: unknown level "warning"`},
		{"info", "yaml", `logging: unknown format "yaml"`},
	}
	for _, tt := range tests {
		log, err := New(&bytes.Buffer{}, tt.level, tt.format)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("New(%q, %q) = %v, %v; want error starting %q", tt.level, tt.format, log, err, tt.want)
		}
	}
}

func TestJSONDurationsAreText(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.With("budget", time.Minute).Named("job").Info("ended", "elapsed", 1500*time.Millisecond, "nodes", 7)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.String())
	}
	for key, want := range map[string]any{"budget": "1m0s", "elapsed": "1.5s", "nodes": float64(7), "@module": "sokod.job"} {
		if rec[key] != want {
			t.Errorf("%s = %#v, want %#v (record %v)", key, rec[key], want, rec)
		}
	}
}
