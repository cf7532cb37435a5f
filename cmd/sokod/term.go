package main

import (
	"io"
	"os"

	"github.com/dustin/go-humanize"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal, where live progress is drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// useColor reports whether output to w may be coloured: w is a terminal
// and NO_COLOR (no-color.org) is unset or empty.
func useColor(env *Env, w io.Writer) bool {
	return isTerminal(w) && env.Getenv("NO_COLOR") == ""
}

// bytesText is the one way sokod shows a byte count to people: binary
// units, three significant digits ("164 MiB", "1.5 GiB"). Sizes in the
// configuration are written exactly instead (config.ByteSize), so that
// they read back the same.
func bytesText(n int64) string {
	if n < 0 {
		return "-" + humanize.IBytes(uint64(-n))
	}
	return humanize.IBytes(uint64(n))
}
