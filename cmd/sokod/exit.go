package main

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes, the same for every subcommand so scripts can rely on them.
const (
	exitOK          = 0   // success: done, valid, solved
	exitFailure     = 1   // an internal or I/O failure
	exitUsage       = 2   // bad flags or arguments, bad configuration
	exitBadInput    = 3   // the input cannot be used: unreadable file, invalid level
	exitInvalid     = 4   // verify: the solution is illegal or does not solve the level
	exitUnsolvable  = 5   // solve: the level is proved unsolvable
	exitGaveUp      = 6   // solve: a budget ran out before an answer
	exitUnavailable = 7   // batch, worker: the NATS server cannot be reached
	exitInterrupted = 130 // cancelled by SIGINT or SIGTERM
)

// exitError carries an exit code with the error that caused it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode attaches an exit code to err.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// errSilent ends a command with a non-zero exit code when the command has
// already reported the failure on stdout (as verify does).
var errSilent = errors.New("reported")

// usageError is a bad invocation; the command's usage is printed after it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}
