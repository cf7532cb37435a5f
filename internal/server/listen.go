package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// SocketName is the daemon's socket file name in its default directory.
const SocketName = "sokod.sock"

// maxSocketPath is the longest Unix socket path Linux takes (sun_path is
// 108 bytes with its terminating NUL); macOS allows less, 104.
const maxSocketPath = 103

// DefaultSocketPath is where the daemon listens, and clients connect, when
// listen.unix is not set: $XDG_RUNTIME_DIR/sokod.sock (a per-user directory
// only its owner can enter), else sokod-UID/sokod.sock in the temporary
// directory, or under /tmp when that path would be too long for a socket.
// getenv is os.Getenv in production.
func DefaultSocketPath(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		if p := filepath.Join(dir, SocketName); len(p) <= maxSocketPath {
			return p
		}
	}
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	p := filepath.Join(tmp, "sokod-"+strconv.Itoa(os.Getuid()), SocketName)
	if len(p) > maxSocketPath {
		p = filepath.Join("/tmp", "sokod-"+strconv.Itoa(os.Getuid()), SocketName)
	}
	return p
}

// ErrDaemonRunning is returned by ListenUnix when a daemon already answers
// on the socket.
var ErrDaemonRunning = errors.New("another sokod daemon is already listening on this socket")

// ListenUnix listens on the Unix socket at path. A socket file already
// there is probed: if a daemon answers, ListenUnix fails with
// ErrDaemonRunning; if nothing does (a daemon that died without cleaning
// up), the stale file is removed and replaced. A file there that is not a
// socket is never removed. The socket's mode is 0600, or, when group is
// set, 0660 with that group. A missing parent directory is created with
// mode 0700 (the temporary-directory default needs it); the directory must
// belong to the daemon's user and be writable by it only, and so must the
// directories above it unless sticky (checkListenDir): whoever could
// write there could replace the socket.
func ListenUnix(path, group string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, more than the %d a Unix socket allows", path, len(path), maxSocketPath)
	}
	gid := -1
	if group != "" {
		g, err := user.LookupGroup(group)
		if err != nil {
			return nil, fmt.Errorf("listen.socket_group: %w", err)
		}
		if gid, err = strconv.Atoi(g.Gid); err != nil {
			return nil, fmt.Errorf("listen.socket_group %s: gid %q: %w", group, g.Gid, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("socket directory: %w", err)
	}
	if err := checkListenDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The socket is created with the process umask; it is tightened at
	// once. In the default directories (XDG_RUNTIME_DIR, or our own 0700
	// directory) nobody else can reach it in between.
	mode := os.FileMode(0o600)
	if gid >= 0 {
		if err := os.Chown(path, -1, gid); err != nil {
			_ = l.Close()
			return nil, fmt.Errorf("socket group %s: %w", group, err)
		}
		mode = 0o660
	}
	if err := os.Chmod(path, mode); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("socket mode: %w", err)
	}
	return l, nil
}

// removeStale removes a socket file at path that no daemon answers on.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("socket %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket; remove it or set listen.unix", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		_ = conn.Close()
		return fmt.Errorf("%s: %w", path, ErrDaemonRunning)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
		// Something else (a full backlog, a permission problem): not
		// provably stale, so it is left alone.
		return fmt.Errorf("probe existing socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	return nil
}

// ListenTCP listens on addr, which config.Validate has checked is a
// loopback host:port.
func ListenTCP(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return l, nil
}
