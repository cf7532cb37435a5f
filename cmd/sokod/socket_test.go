package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSocketDirectoryTakenByAnotherUser replays the attack: with no
// XDG_RUNTIME_DIR, another user has made the default socket directory,
// world-writable, and put a socket in it. The daemon refuses to start
// there, saying why, and the client refuses to connect. (Both used it.)
func TestSocketDirectoryTakenByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files another user's")
	}
	const other = 4242
	tmp := filepath.Join(shortDir(t), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "sokod-"+strconv.Itoa(os.Geteuid()))
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	impostor, err := net.Listen("unix", filepath.Join(dir, "sokod.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer impostor.Close()
	for _, p := range []string{dir, filepath.Join(dir, "sokod.sock")} {
		if err := os.Lchown(p, other, other); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"XDG_RUNTIME_DIR=", "TMPDIR=" + tmp}

	r := runBin(t, env, "serve")
	if r.code == 0 || !strings.Contains(r.stderr, "belongs to uid 4242") {
		t.Errorf("serve: exit %d, want a refusal naming the owner\n%s", r.code, r.stderr)
	}
	r = runBin(t, env, "status")
	if r.code == 0 || !strings.Contains(r.stderr, "not your daemon") {
		t.Errorf("status: exit %d, want a refusal\n%s", r.code, r.stderr)
	}
}
