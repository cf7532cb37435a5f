package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

// watchInterrupts returns a context that the first signal on sigs (SIGINT
// or SIGTERM) cancels, so that the command stops cleanly: a solve reports
// what it has, the daemon ends its jobs. A second signal calls
// exit(exitInterrupted) at once, for when the clean stop takes too long.
// note, when not nil, is told so after the first. stop ends the watching.
func watchInterrupts(parent context.Context, sigs <-chan os.Signal, note io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	// A signal and stop may both be ready; select picks either, so after
	// a signal the watcher looks again whether it was stopped.
	stopped := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	go func() {
		select {
		case <-sigs:
			if stopped() {
				return
			}
		case <-done:
			return
		}
		cancel()
		if note != nil {
			fmt.Fprintln(note, "\nsokod: stopping; interrupt again to exit at once")
		}
		select {
		case <-sigs:
			if !stopped() {
				exit(exitInterrupted)
			}
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		cancel()
	}
}
