package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/batch"
	"github.com/sokod/sokod/sokoban"
)

// batchLevels has three levels that are solved at once and one that is
// proved unsolvable at once.
const batchLevels = "testdata/batch.xsb"

// batchLine is what the tests read of a batch results JSON line.
type batchLine struct {
	Kind     string `json:"kind"`
	Index    int    `json:"index"`
	Level    int    `json:"level"`
	Status   string `json:"status"`
	Solution string `json:"solution"`
	FoundBy  string `json:"found_by"`
	Pushes   int    `json:"pushes"`
	Results  int    `json:"results"`
	Solved   int    `json:"solved"`
}

// readLines parses JSON lines: the level lines, then the summary.
func readLines(t *testing.T, out string) ([]batchLine, batchLine) {
	t.Helper()
	var lines []batchLine
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l batchLine
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("not a JSON line: %q: %v", s, err)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 || lines[len(lines)-1].Kind != "summary" {
		t.Fatalf("no summary line last:\n%s", out)
	}
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// statuses returns the level lines' statuses in order.
func statuses(lines []batchLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, fmt.Sprintf("%d:%s", l.Level, l.Status))
	}
	return out
}

var batchStatuses = []string{"1:solved", "2:solved", "3:solved", "4:unsolvable"}

// TestLocalBatch runs a batch on the in-process NATS server with a store:
// the results come in level order, once each, the SOK collection holds the
// solutions, and a second run is answered from the store.
func TestLocalBatch(t *testing.T) {
	dir := t.TempDir()
	storePath, sok := filepath.Join(dir, "store.db"), filepath.Join(dir, "out.sok")
	r := runSokod(t, "", "batch", batchLevels, "--workers", "3", "--json", "--out", sok, "--store", storePath, "--log-level", "off")
	if r.code != exitOK {
		t.Fatalf("exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	lines, sum := readLines(t, r.stdout)
	if diff := cmp.Diff(batchStatuses, statuses(lines)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if sum.Results != 4 || sum.Solved != 3 {
		t.Errorf("summary %+v, want 4 results, 3 solved", sum)
	}
	c, err := sokoban.ParseCollection(mustRead(t, sok))
	if err != nil {
		t.Fatal(err)
	}
	var solvedInFile []bool
	for _, l := range c.Levels {
		solvedInFile = append(solvedInFile, l.SolvedInFile())
	}
	if diff := cmp.Diff([]bool{true, true, true, false}, solvedInFile); diff != "" {
		t.Errorf("levels solved in %s (-want +got):\n%s", sok, diff)
	}

	r = runSokod(t, "", "batch", batchLevels, "--workers", "1", "--json", "--store", storePath, "--log-level", "off")
	if r.code != exitOK {
		t.Fatalf("second run: exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	lines, _ = readLines(t, r.stdout)
	var foundBy []string
	for _, l := range lines {
		foundBy = append(foundBy, l.FoundBy)
	}
	// The unsolvable level is not stored: it is proved again.
	if diff := cmp.Diff([]string{"store", "store", "store", "matching"}, foundBy); diff != "" {
		t.Errorf("second run found by (-want +got):\n%s", diff)
	}
}

// TestBatchAcrossProcesses submits a batch to a NATS server, solves it
// with a `sokod worker` process, follows it with batch status and collects
// it with batch results; SIGTERM stops the worker with exit code 0.
func TestBatchAcrossProcesses(t *testing.T) {
	srv, err := batch.StartServer(batch.ServerOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	url := srv.URL()
	r := runSokod(t, "", "batch", "submit", batchLevels, "--nats", url, "--batch", "e2e", "--objective", "pushes", "--time", "30s")
	if r.code != exitOK || r.stdout != "e2e\n" {
		t.Fatalf("submit: exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runSokod(t, "", "batch", "submit", batchLevels, "--nats", url, "--batch", "e2e")
	if r.code == exitOK || !strings.Contains(r.stderr, "batch e2e exists already") {
		t.Errorf("a second submit with the same id: exit code %d, stderr %s", r.code, r.stderr)
	}
	r = runSokod(t, "", "batch", "status", "e2e", "--nats", url, "--json")
	var st batchStatusOutput
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || r.code != exitOK {
		t.Fatalf("status: exit code %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(st.Batches) != 1 || st.Batches[0].Queued != 4 || st.Batches[0].Done != 0 {
		t.Errorf("status before any worker: %+v, want 4 queued, none done", st.Batches)
	}

	worker := exec.Command(sokodBin, "worker", "--nats", url)
	worker.Env = binEnv("SOKOD_SERVER_MAX_JOBS=2", "SOKOD_LOG_LEVEL=info")
	log := &lockedBuffer{}
	worker.Stdout, worker.Stderr = log, log
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = worker.Process.Kill()
		if t.Failed() {
			t.Logf("worker log:\n%s", log.String())
		}
	})
	r = runSokod(t, "", "batch", "results", "e2e", "--nats", url, "--wait", "--json")
	if r.code != exitOK {
		t.Fatalf("results: exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	lines, _ := readLines(t, r.stdout)
	if diff := cmp.Diff(batchStatuses, statuses(lines)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if err := worker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- worker.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("worker after SIGTERM: %v", err)
		}
	case <-time.After(daemonDeadline):
		t.Fatal("the worker did not stop on SIGTERM")
	}
	for _, want := range []string{"worker started", "job done", "worker stopped"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the worker's log does not say %q", want)
		}
	}

	r = runSokod(t, "", "batch", "status", "--nats", url)
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	var row string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "e2e ") {
			row = strings.Join(strings.Fields(sc.Text()), " ")
		}
	}
	if !strings.HasSuffix(row, " 4 4 3 0 done") {
		t.Errorf("status row %q, want 4 levels, 4 done, 3 solved, 0 queued, done", row)
	}
	r = runSokod(t, "", "batch", "delete", "e2e", "--nats", url)
	if r.code != exitOK {
		t.Errorf("delete: exit code %d: %s", r.code, r.stderr)
	}
	r = runSokod(t, "", "batch", "results", "e2e", "--nats", url)
	if r.code != exitBadInput || !strings.Contains(r.stderr, "no such batch") {
		t.Errorf("results of a deleted batch: exit code %d, stderr %q", r.code, r.stderr)
	}
}

func TestBatchUnreachableNATS(t *testing.T) {
	for _, args := range [][]string{
		{"batch", "status", "--nats", "nats://127.0.0.1:1"},
		{"batch", "submit", batchLevels, "--nats", "nats://127.0.0.1:1"},
		{"worker", "--nats", "nats://127.0.0.1:1"},
	} {
		r := runSokod(t, "", args...)
		if r.code != exitUnavailable || !strings.Contains(r.stderr, "cannot reach NATS at nats://127.0.0.1:1") {
			t.Errorf("%v: exit code %d, stderr %q; want %d and the URL", args, r.code, r.stderr, exitUnavailable)
		}
	}
}

// TestStoreImportExport imports a SOK file with a good and a bad solution,
// solves from the store, and exports it.
func TestStoreImportExport(t *testing.T) {
	dir := t.TempDir()
	storePath := filepath.Join(dir, "store.db")
	sok := filepath.Join(dir, "in.sok")
	writeText(t, sok, "; Hall\n#######\n#     #\n#@$  .#\n#     #\n#######\n\nSolution (6 moves, 6 pushes)\nRRR\nSolver: Other\n\n"+
		"; Corner\n######\n#.   #\n#  $ #\n#  @ #\n######\n\nSolution\nuL\n")
	r := runSokod(t, "", "store", "import", sok, "--store", storePath, "--json")
	if r.code != exitInvalid {
		t.Fatalf("import with a bad solution: exit code %d, want %d\n%s%s", r.code, exitInvalid, r.stdout, r.stderr)
	}
	var imp importOutput
	if err := json.Unmarshal([]byte(r.stdout), &imp); err != nil {
		t.Fatal(err)
	}
	if imp.Solutions != 2 || imp.Kept != 1 || imp.Invalid != 1 || len(imp.Rejected) != 1 || imp.Rejected[0].Level != 2 {
		t.Errorf("import %+v, want 2 read, 1 kept, level 2 rejected", imp)
	}

	r = runSokod(t, "", "solve", batchLevels, "--store", storePath, "--json")
	var out solveOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != exitOK {
		t.Fatalf("solve: exit code %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if out.FoundBy != "store" || out.Solution != "RRR" || out.Phase != "store" {
		t.Errorf("solve from the store: found by %q in %q, %q; want the store's RRR", out.FoundBy, out.Phase, out.Solution)
	}

	exported := filepath.Join(dir, "out.sok")
	r = runSokod(t, "", "store", "export", exported, "--store", storePath)
	if r.code != exitOK {
		t.Fatalf("export: exit code %d: %s", r.code, r.stderr)
	}
	c, err := sokoban.ParseCollection(mustRead(t, exported))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Levels) != 1 || len(c.Levels[0].Snapshots) != 1 || !c.Levels[0].SolvedInFile() || c.Levels[0].Title != "Hall" {
		t.Fatalf("export holds %d levels; want Hall with its solution:\n%s", len(c.Levels), mustRead(t, exported))
	}
	if diff := cmp.Diff([]sokoban.Note{{Key: "Solver", Value: "Other"}}, c.Levels[0].Snapshots[0].Notes[:1]); diff != "" {
		t.Errorf("the exported solution's notes (-want +got):\n%s", diff)
	}

	r = runSokod(t, "", "store", "info", "--store", storePath)
	if r.code != exitOK || r.stdout != "store "+storePath+": 1 levels, 0 proved push-optimal\n" {
		t.Errorf("info: exit code %d, %q", r.code, r.stdout)
	}
	r = runSokod(t, "", "store", "info", "--store", "")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no store") {
		t.Errorf("info without a store: exit code %d, %q", r.code, r.stderr)
	}
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
