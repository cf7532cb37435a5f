package supervisor

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// TestNoPluginOutlivesTheHost SIGKILLs a host process, which cannot clean
// up, and checks that the kernel ends its plugin (Pdeathsig).
func TestNoPluginOutlivesTheHost(t *testing.T) {
	// Become the subreaper of the orphaned plugin, so that its exit is
	// reaped here rather than left as a zombie under a PID 1 that may not
	// reap (as in containers).
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Logf("prctl(PR_SET_CHILD_SUBREAPER): %v; a zombie may be left behind", errno)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+pluginDir(t, "good"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid == 0 {
		_ = cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	if processGone(pid) {
		t.Fatalf("plugin %d not running", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, pid)
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}
