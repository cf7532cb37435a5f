package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rowsLevel writes a level with rows of boxes, each row's goals at its
// other end, to a file: many boxes, so that analysing it and each step of
// searching it take seconds.
func rowsLevel(t *testing.T, rows, boxes, width int) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(strings.Repeat("#", width) + "\n")
	sb.WriteString("#@" + strings.Repeat(" ", width-3) + "#\n")
	for range rows {
		sb.WriteString("# " + strings.Repeat("$", boxes) + strings.Repeat(" ", width-3-2*boxes) + strings.Repeat(".", boxes) + "#\n")
		sb.WriteString("#" + strings.Repeat(" ", width-2) + "#\n")
	}
	sb.WriteString(strings.Repeat("#", width) + "\n")
	path := filepath.Join(t.TempDir(), "rows.xsb")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rssProbeEnv names the file in which the test binary, run as the probe,
// writes its child's peak resident memory in KiB. A child started by the
// test process itself would report the test process's peak instead: Linux
// counts the memory of the process that calls exec, and Go starts children
// with vfork, so that process is the test's own.
const rssProbeEnv = "SOKOD_TEST_RSS_PROBE"

// rssProbe runs args[0] with args[1:], its output the probe's, writes the
// child's peak resident memory to the file named by rssProbeEnv and returns
// the child's exit code.
func rssProbe(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		return 125
	}
	kib := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if err := os.WriteFile(os.Getenv(rssProbeEnv), []byte(strconv.FormatInt(kib, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "rss probe:", err)
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

// TestSolveBudgets runs the sokod binary on levels of hundreds and
// thousands of boxes, the default planners on: it returns soon after
// --time, and its peak resident memory stays within --memory plus
// MemorySlack: levels this large are where a budget checked too rarely,
// or memory not counted, shows first.
func TestSolveBudgets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's rusage")
	}
	huge := rowsLevel(t, 60, 50, 128) // 3000 boxes
	large := rowsLevel(t, 20, 25, 64) // 500 boxes
	tests := []struct {
		name      string
		args      []string
		time      time.Duration // the budget; 0: only memory is checked
		maxMemory int64         // peak resident bytes allowed; 0: not checked
	}{
		{"3000 boxes, time", []string{huge, "--time", "1s"}, time.Second, 0},
		{"3000 boxes, memory", []string{huge, "--memory", "64MiB"}, 0, 64<<20 + MemorySlack},
		{"500 boxes, memory and time", []string{large, "--memory", "64MiB", "--time", "3s"}, 3 * time.Second, 64<<20 + MemorySlack},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rssFile := filepath.Join(t.TempDir(), "maxrss")
			cmd := exec.Command(os.Args[0], append([]string{sokodBin, "solve"}, tc.args...)...)
			cmd.Env = append(os.Environ(), "GOMEMLIMIT=", rssProbeEnv+"="+rssFile)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitGaveUp {
				t.Fatalf("sokod solve: %v, want exit %d (gave up)\n%s", err, exitGaveUp, out)
			}
			if tc.time > 0 && elapsed > tc.time+time.Second {
				t.Errorf("returned %v after start, budget %v\n%s", elapsed.Round(time.Millisecond), tc.time, out)
			}
			kib, err := os.ReadFile(rssFile)
			if err != nil {
				t.Fatalf("the probe's report: %v\n%s", err, out)
			}
			peak, err := strconv.ParseInt(string(kib), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			peak <<= 10
			t.Logf("%s: %v, peak %d MiB: %s", tc.name, elapsed.Round(time.Millisecond), peak>>20, strings.TrimSpace(string(out)))
			if tc.maxMemory > 0 && peak > tc.maxMemory {
				t.Errorf("peak resident memory %d MiB, want at most %d MiB", peak>>20, tc.maxMemory>>20)
			}
		})
	}
}
