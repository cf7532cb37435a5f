package main

import (
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"
)

// benchBar is the progress bar of sokod bench, on standard error when it
// is a terminal: levels done of all, and how many are solved. A nil
// *benchBar draws nothing, so that bench runs in a pipe or a log stay
// quiet.
type benchBar struct {
	bar *progressbar.ProgressBar
}

// newBenchBar returns the bar of a bench of n levels, or nil when standard
// error is not a terminal. It is coloured unless NO_COLOR says otherwise.
func newBenchBar(env *Env, n int) *benchBar {
	if !isTerminal(env.Stderr) {
		return nil
	}
	return &benchBar{bar: newProgressBar(env.Stderr, n, useColor(env, env.Stderr))}
}

func newProgressBar(w io.Writer, n int, color bool) *progressbar.ProgressBar {
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionEnableColorCodes(color),
		progressbar.OptionSetDescription(barDescription(0, color)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish(),
	)
}

// barDescription says how many levels are solved; colour codes are the
// progressbar package's, written out only when color.
func barDescription(solved int, color bool) string {
	if color {
		return fmt.Sprintf("[cyan]bench[reset] [green]%d solved[reset]", solved)
	}
	return fmt.Sprintf("bench %d solved", solved)
}

// clear erases the bar, so that a table row can be written.
func (b *benchBar) clear() {
	if b != nil {
		_ = b.bar.Clear()
	}
}

// done counts one more level and draws the bar again.
func (b *benchBar) done(solved int, color bool) {
	if b != nil {
		b.bar.Describe(barDescription(solved, color))
		_ = b.bar.Add(1)
	}
}
