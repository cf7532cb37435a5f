package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherUID is a uid that is not the test's, for directories another user
// made; the tests that need it run as root, which can give files away.
const otherUID = 4242

func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files another user's")
	}
}

// TestListenRefusesUnsafeDirectories: the daemon does not listen in a
// directory another user owns or can write to, nor under a directory
// others can write to that is not sticky. (A world-writable sokod-0
// another user had made was accepted, and that user replaced the socket.)
func TestListenRefusesUnsafeDirectories(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, base string) string // returns the socket's directory
		want  string                                 // in the error; "" for none
	}{
		{"own private directory", func(t *testing.T, base string) string { return mkdir(t, base, "d", 0o700) }, ""},
		{"created for it", func(t *testing.T, base string) string { return filepath.Join(base, "new") }, ""},
		{"world-writable", func(t *testing.T, base string) string { return mkdir(t, base, "d", 0o777) }, "mode"},
		{"group-writable", func(t *testing.T, base string) string { return mkdir(t, base, "d", 0o770) }, "mode"},
		{"inside a world-writable directory", func(t *testing.T, base string) string {
			return mkdir(t, mkdir(t, base, "open", 0o777), "d", 0o700)
		}, "inside"},
		{"inside a sticky world-writable directory", func(t *testing.T, base string) string {
			return mkdir(t, mkdir(t, base, "tmp", 0o777|os.ModeSticky), "d", 0o700)
		}, ""},
		{"a symbolic link", func(t *testing.T, base string) string {
			target := mkdir(t, base, "real", 0o700)
			link := filepath.Join(base, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "not a directory"},
		{"another user's", func(t *testing.T, base string) string {
			asRoot(t)
			d := mkdir(t, mkdir(t, base, "tmp", 0o777|os.ModeSticky), "sokod-0", 0o777)
			chown(t, d, otherUID)
			return d
		}, "belongs to uid 4242"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t, shortTemp(t))
			l, err := ListenUnix(filepath.Join(dir, "s.sock"), "")
			if err == nil {
				l.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ListenUnix: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("ListenUnix: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestClientChecksTheSocket: the client refuses a socket that another
// user owns at the default path, or whose directory others can write to.
func TestClientChecksTheSocket(t *testing.T) {
	asRoot(t)
	listenAt := func(t *testing.T, dir string, owner int) string {
		path := filepath.Join(dir, "s.sock")
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		chown(t, path, owner)
		return path
	}
	base := shortTemp(t)
	mine := listenAt(t, mkdir(t, base, "mine", 0o700), os.Geteuid())
	impostorDir := mkdir(t, mkdir(t, base, "tmp", 0o777|os.ModeSticky), "sokod-0", 0o755)
	chown(t, impostorDir, otherUID)
	impostor := listenAt(t, impostorDir, otherUID)
	openDir := mkdir(t, base, "open", 0o777)
	chown(t, openDir, otherUID)
	open := listenAt(t, openDir, otherUID)
	tests := []struct {
		path       string
		ownDefault bool
		ok         bool
	}{
		{mine, true, true},
		{impostor, true, false}, // another user's daemon at the default path
		{impostor, false, true}, // named explicitly: its owner's, in its owner's directory
		{open, false, false},    // anyone could have replaced it
	}
	for _, tt := range tests {
		if err := CheckSocket(tt.path, tt.ownDefault); (err == nil) != tt.ok {
			t.Errorf("CheckSocket(%s, default %v): %v, want ok %v", tt.path, tt.ownDefault, err, tt.ok)
		}
	}
}

func mkdir(t *testing.T, parent, name string, mode os.FileMode) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	return d
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Lchown(path, uid, -1); err != nil {
		t.Fatal(err)
	}
}

// shortTemp is a private temporary directory short enough for sockets.
func shortTemp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "skd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}
