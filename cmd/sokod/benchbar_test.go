package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestBenchBar(t *testing.T) {
	for _, color := range []bool{false, true} {
		var buf bytes.Buffer
		bar := &benchBar{bar: newProgressBar(&buf, 3, color)}
		bar.done(1, color)
		bar.done(2, color)
		out := buf.String()
		if !strings.Contains(out, "(2/3)") || !strings.Contains(out, "2 solved") {
			t.Errorf("color %v: the bar does not say 2 of 3 levels, 2 solved: %q", color, out)
		}
		if got := strings.Contains(out, "\x1b[3"); got != color {
			t.Errorf("color %v: colour codes written: %v: %q", color, got, out)
		}
	}
	var none *benchBar // not on a terminal: nothing is drawn, nothing fails
	none.done(1, false)
	none.clear()
}

// TestBenchQuietInAPipe: standard error is no terminal, so bench draws no
// bar there.
func TestBenchQuietInAPipe(t *testing.T) {
	r := runSokod(t, "", "bench", smallLevels, "--memory", "16MiB")
	if r.code != exitOK || r.stderr != "" {
		t.Errorf("exit code %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 164 << 20: "164 MiB", 3 << 30: "3.0 GiB", -2048: "-2.0 KiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}
