package server

import (
	"fmt"
	"os"
	"path/filepath"
)

// The socket's directory decides who may replace the socket: anyone who
// can write to it, or to a directory above it, can rename it and put an
// impostor in its place, to which clients would then send their levels and
// whose answers they would print. So the daemon refuses to listen, and
// the client to connect, unless the socket's directory and the ones above
// it are safe (checkDir); the check needs the owners and modes of Unix
// file systems (sockdir_unix.go).

// dirRule says who may own the socket's directory and those above it.
type dirRule struct {
	// final reports whether uid may own the socket's own directory.
	final func(uid int) bool
	// above reports whether uid may own a directory above it.
	above func(uid int) bool
	// who says whom final allows, for messages: "this daemon's user".
	who string
}

// checkDirs checks the directory dir and those above it by rule: dir must
// be a real directory (not a symbolic link) owned as rule.final says and
// writable by its owner only; each directory above must be owned as
// rule.above says and writable by its owner only, unless it is sticky
// (others cannot remove or rename what they do not own there: /tmp).
func checkDirs(dir string, rule dirRule) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory but %v; set listen.unix to a path in a directory of your own", dir, fi.Mode().Type())
	}
	uid, ok := fileOwner(fi)
	if !ok {
		return nil // no owners to check on this system
	}
	if !rule.final(uid) {
		return fmt.Errorf("socket directory %s belongs to uid %d, not to %s: its owner could replace the socket; remove it or set listen.unix", dir, uid, rule.who)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket directory %s has mode %v: other users could replace the socket; make it writable by its owner only (chmod go-w) or set listen.unix", dir, fi.Mode().Perm())
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("socket directory: %w", err)
		}
		uid, _ := fileOwner(fi)
		switch {
		case !rule.above(uid):
			return fmt.Errorf("socket directory %s is inside %s, which belongs to uid %d: its owner could replace the socket's directory; set listen.unix", dir, d, uid)
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("socket directory %s is inside %s, mode %v: other users could replace the socket's directory; set listen.unix", dir, d, fi.Mode().Perm())
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// checkListenDir checks the directory the daemon is to listen in: its
// own, with no one else able to change it or the directories above it.
func checkListenDir(dir string) error {
	me := os.Geteuid()
	return checkDirs(dir, dirRule{
		final: func(uid int) bool { return uid == me },
		above: func(uid int) bool { return uid == me || uid == 0 },
		who:   fmt.Sprintf("this daemon's user (uid %d)", me),
	})
}

// CheckSocket checks, before a client connects, the socket at path and the
// directories it is in. The socket's owner is taken for the daemon's user:
// the directory must be that user's (or root's, or the client's own) and
// writable by its owner only, and so must every directory above it unless
// it is sticky. With ownDefault, for the default path that the client
// derives from its own user, the socket and its directory must be the
// client's own (or root's): another user's daemon there is an impostor.
func CheckSocket(path string, ownDefault bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err // no socket: the dial says so the usual way
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket", path)
	}
	owner, ok := fileOwner(fi)
	if !ok {
		return nil
	}
	me := os.Geteuid()
	trusted := func(uid int) bool { return uid == 0 || uid == me || uid == owner && !ownDefault }
	if !trusted(owner) {
		return fmt.Errorf("the socket %s belongs to uid %d, not to you (uid %d): not your daemon; set listen.unix or --remote", path, owner, me)
	}
	who := fmt.Sprintf("the socket's owner (uid %d), root or you", owner)
	if ownDefault {
		who = fmt.Sprintf("you (uid %d) or root", me)
	}
	return checkDirs(filepath.Dir(path), dirRule{final: trusted, above: trusted, who: who})
}
