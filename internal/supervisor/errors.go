package supervisor

import (
	"errors"
	"fmt"
)

// The kinds of plugin failure. An *Error wraps exactly one of them, so
// callers test with errors.Is(err, ErrCrashed) and so on.
var (
	// ErrNotFound: the plugin's binary is missing or not executable.
	ErrNotFound = errors.New("plugin binary not found")
	// ErrChecksum: the binary's sha256 differs from the pinned one.
	ErrChecksum = errors.New("plugin binary checksum mismatch")
	// ErrStart: the process did not start, did not complete the go-plugin
	// handshake within the start timeout (a plugin that writes to stdout
	// before the handshake ends here too), or described itself wrongly.
	ErrStart = errors.New("plugin failed to start")
	// ErrCrashed: the process died or dropped its connection during a
	// call.
	ErrCrashed = errors.New("plugin crashed")
	// ErrHung: a call did not return within the call timeout; the process
	// has been killed.
	ErrHung = errors.New("plugin hung")
	// ErrGarbage: an answer broke the protocol (it also wraps
	// sdk.ErrBadAnswer); the process has been killed.
	ErrGarbage = errors.New("plugin answered garbage")
	// ErrUnavailable: the plugin failed recently and is waiting to be
	// restarted; calls fail at once instead of waiting.
	ErrUnavailable = errors.New("plugin unavailable while it restarts")
	// ErrDisabled: the plugin failed repeatedly, or cannot be started at
	// all, and has been taken out of use until the host restarts.
	ErrDisabled = errors.New("plugin taken out of use")
	// ErrStale: a prepared session belongs to a plugin process that has
	// since been restarted, which lost it.
	ErrStale = errors.New("plugin session lost in a restart")
	// ErrClosed: the host has been closed.
	ErrClosed = errors.New("plugin host closed")
	// ErrRefused: the component itself returned an error (it refused the
	// level, say). The plugin is healthy and stays in use.
	ErrRefused = errors.New("plugin refused")
)

// Error is a failed call to, or start of, a plugin.
type Error struct {
	// Plugin is the plugin's name.
	Plugin string
	// Op is what was being done: "start", "prepare heuristic", ...
	Op string
	// Kind is one of the Err* values of this package.
	Kind error
	// Err is the underlying cause; for ErrUnavailable and ErrDisabled it
	// is the failure that made the plugin so.
	Err error
}

// Error returns "plugin NAME: OP: KIND: CAUSE".
func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("plugin %s: %s: %v", e.Plugin, e.Op, e.Kind)
	}
	return fmt.Sprintf("plugin %s: %s: %v: %v", e.Plugin, e.Op, e.Kind, e.Err)
}

// Brief returns "plugin NAME: OP: KIND", with the cause only when it is the
// component's own refusal and, for a plugin unavailable or taken out of
// use, the kind of the failure that made it so. It is what clients of the
// daemon are told: a cause may hold the binary's path, its checksum or the
// plugin's socket, which stay in the daemon's log.
func (e *Error) Brief() string {
	s := fmt.Sprintf("plugin %s: %s: %v", e.Plugin, e.Op, e.Kind)
	var cause *Error
	switch {
	case errors.Is(e.Kind, ErrRefused) && e.Err != nil:
		s += ": " + e.Err.Error()
	case errors.As(e.Err, &cause):
		s += fmt.Sprintf(" (after: %v)", cause.Kind)
	}
	return s
}

// Unwrap returns the kind and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}
