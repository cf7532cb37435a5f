package server

import (
	"errors"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestDefaultSocketPath(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"runtime dir", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "TMPDIR": "/var/tmp"}, "/run/user/1000/sokod.sock"},
		{"temp dir", map[string]string{"TMPDIR": "/var/tmp"}, "/var/tmp/sokod-" + uid + "/sokod.sock"},
		{"no temp dir", nil, "/tmp/sokod-" + uid + "/sokod.sock"},
		{"runtime dir too long", map[string]string{"XDG_RUNTIME_DIR": "/" + strings.Repeat("r", 120)}, "/tmp/sokod-" + uid + "/sokod.sock"},
		{"temp dir too long", map[string]string{"TMPDIR": "/" + strings.Repeat("t", 120)}, "/tmp/sokod-" + uid + "/sokod.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultSocketPath(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// socketDir returns a short temporary directory for sockets.
func socketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sokod")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestListenUnix(t *testing.T) {
	dir := socketDir(t)
	path := filepath.Join(dir, "sub", "s.sock")

	l, err := ListenUnix(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := modeOf(t, path); m != 0o600 {
		t.Errorf("socket mode %v, want 0600", m)
	}
	if m := modeOf(t, filepath.Dir(path)); m != 0o700 {
		t.Errorf("created directory mode %v, want 0700", m)
	}

	// A live socket refuses a second daemon and is left in place.
	if _, err := ListenUnix(path, ""); !errors.Is(err, ErrDaemonRunning) {
		t.Errorf("second listener: %v, want ErrDaemonRunning", err)
	}
	if c, err := net.Dial("unix", path); err != nil {
		t.Errorf("the live socket was harmed: %v", err)
	} else {
		c.Close()
	}
	l.Close()

	// A stale socket (its daemon gone without removing it) is replaced.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	l, err = ListenUnix(path, "")
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	l.Close()

	// Anything else is never removed.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenUnix(file, ""); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("over a regular file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Error("the regular file was changed")
	}

	if _, err := ListenUnix("/"+strings.Repeat("x", 200), ""); err == nil {
		t.Error("an over-long path was accepted")
	}
	if _, err := ListenUnix(filepath.Join(dir, "g.sock"), "no-such-group-sokod"); err == nil {
		t.Error("an unknown group was accepted")
	}
}

func TestListenUnixGroup(t *testing.T) {
	g, err := user.LookupGroupId(strconv.Itoa(os.Getgid()))
	if err != nil {
		t.Skipf("no name for our group: %v", err)
	}
	path := filepath.Join(socketDir(t), "s.sock")
	l, err := ListenUnix(path, g.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := modeOf(t, path); m != 0o660 {
		t.Errorf("socket mode %v, want 0660", m)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if gid := fi.Sys().(*syscall.Stat_t).Gid; strconv.Itoa(int(gid)) != g.Gid {
		t.Errorf("socket group %d, want %s", gid, g.Gid)
	}
}

func TestListenTCP(t *testing.T) {
	l, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}
