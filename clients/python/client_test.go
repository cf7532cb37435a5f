package python_test

// The Python client example against a daemon started here (the server
// package on a temporary Unix socket), run with Debian's python3 as its
// users would run it. Like the Python plugin's tests, it skips without
// python3-grpcio and python3-protobuf (.ci/run installs them).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/server"
)

const python = "/usr/bin/python3"

func needPython(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		t.Skipf("skipping the Python client: %s with python3-grpcio and python3-protobuf is needed: %v: %s", python, err, out)
	}
}

// startDaemon serves the daemon on a new socket and returns its address.
func startDaemon(t *testing.T) string {
	t.Helper()
	srv, err := server.New(server.Options{Components: registry.New(nil, nil),
		Limits: server.Limits{Time: time.Minute, Memory: 256 << 20}, MaxJobs: 2, Queue: 4, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "sokodpy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := server.ListenUnix(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "unix://" + path
}

// client runs the example with args and returns its output and exit code.
func client(t *testing.T, addr string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{"sokod_client.py", "--address", addr}, args...)...)
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

func TestPythonClient(t *testing.T) {
	needPython(t)
	addr := startDaemon(t)

	t.Run("info", func(t *testing.T) {
		out, code := client(t, addr, "info")
		var info struct {
			Name, Version string
			Limits        struct{ MaxJobs int }
		}
		if err := json.Unmarshal([]byte(out), &info); code != 0 || err != nil || info.Name != "sokod" || info.Version != "test" || info.Limits.MaxJobs != 2 {
			t.Errorf("exit %d, %v: %s", code, err, out)
		}
	})

	t.Run("solve", func(t *testing.T) {
		out, code := client(t, addr, "solve", "../../testdata/example.xsb")
		if code != 0 || !regexp.MustCompile(`(?m)^job [0-9a-f]+ accepted$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^STATUS_SOLVED: 13 moves, 3 pushes: [lurdLURD]+$`).MatchString(out) {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("invalid level", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.xsb")
		if err := os.WriteFile(bad, []byte("#####\n#@X.#\n#####\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := client(t, addr, "solve", bad)
		if code != 3 || !strings.Contains(out, "STATUS_INVALID_LEVEL") {
			t.Errorf("exit %d, want 3:\n%s", code, out)
		}
	})

	t.Run("detach, leave, and watch by id", func(t *testing.T) {
		// The client leaves as soon as the job is accepted; the job may
		// still run or may have ended (the server's tests hold a job
		// running while its client is gone), and watch follows it to its
		// result either way.
		cmd := exec.Command(python, "sokod_client.py", "--address", addr, "solve", "../../internal/server/testdata/warehouse.xsb", "--detach")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		m := regexp.MustCompile(`^job ([0-9a-f]+) accepted`).FindStringSubmatch(line)
		if err != nil || m == nil {
			t.Fatalf("first line %q, %v", line, err)
		}
		out, code := client(t, addr, "watch", m[1], "--json")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var last struct {
			Result struct{ Status, JobId string }
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); code != 0 || err != nil ||
			last.Result.Status != "STATUS_SOLVED" || last.Result.JobId != m[1] {
			t.Errorf("watch of job %s: exit %d, %v:\n%s", m[1], code, err, out)
		}
	})

	t.Run("no such job", func(t *testing.T) {
		if _, code := client(t, addr, "cancel", "999"); code != 1 {
			t.Errorf("cancel of no job: exit %d, want 1", code)
		}
	})
}
