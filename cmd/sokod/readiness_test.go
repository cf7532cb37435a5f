package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestPluginHangingAtStartDoesNotDelayReadiness: a plugin that never
// completes its start does not keep the daemon from serving for
// plugins.start_timeout (health answered only after 10 s).
func TestPluginHangingAtStartDoesNotDelayReadiness(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "sokod-plugin-startless"), "../../internal/supervisor/testdata/testplugin").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sock := filepath.Join(shortDir(t), "s.sock")
	start := time.Now()
	startDaemon(t, sock, "SOKOD_PLUGINS_DIRS="+dir, "SOKOD_PLUGINS_START_TIMEOUT=20s")
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("the daemon served after %v", elapsed)
	}
	// Built-in components work meanwhile.
	r := runBin(t, nil, "solve", example, "--remote", "unix://"+sock)
	if r.code != 0 {
		t.Errorf("solve --remote: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
