package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestWatchInterrupts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	exits := make(chan int, 1)
	var note bytes.Buffer
	ctx, stop := watchInterrupts(context.Background(), sigs, &note, func(code int) { exits <- code })
	defer stop()

	sigs <- os.Interrupt
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first interrupt did not cancel the context")
	}
	select {
	case code := <-exits:
		t.Fatalf("the first interrupt exited (%d)", code)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- os.Interrupt
	select {
	case code := <-exits:
		if code != exitInterrupted {
			t.Errorf("exit code %d, want %d", code, exitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second interrupt did not exit")
	}
	if !strings.Contains(note.String(), "interrupt again to exit at once") {
		t.Errorf("note %q does not say a second interrupt exits", note.String())
	}
}

// TestWatchInterruptsStopped: once the command has returned, signals no
// longer exit.
func TestWatchInterruptsStopped(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	exits := make(chan int, 2)
	ctx, stop := watchInterrupts(context.Background(), sigs, nil, func(code int) { exits <- code })
	stop()
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	select {
	case code := <-exits:
		t.Errorf("exited (%d) after stop", code)
	case <-time.After(50 * time.Millisecond):
	}
	if ctx.Err() == nil {
		t.Error("stop left the context alive")
	}
}
