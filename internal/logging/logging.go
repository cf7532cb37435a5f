// Package logging builds the go-hclog logger that sokod and its subcommands
// log through.
//
// There is no package-level logger: callers build one with New and pass it
// down explicitly, so tests can capture output and run in parallel. go-hclog
// is the logger go-plugin speaks, so plugin subprocess output can later be
// routed through the same logger with its own sub-name.
package logging

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Name is the name of the root logger; sub-loggers made with Named appear
// as "sokod.NAME".
const Name = "sokod"

// New returns a logger named "sokod" that writes to w at the given level in
// the given format.
//
// level is one of trace, debug, info, warn, error or off; format is text or
// json. The empty string selects the default (info, text). Any other value is
// an error, so a typo in a config file or flag is reported instead of
// silently logging at the wrong level. Both names are matched exactly, as the
// config package validates them.
func New(w io.Writer, level, format string) (hclog.Logger, error) {
	lvl, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	var jsonFormat bool
	switch format {
	case "", "text":
	case "json":
		jsonFormat = true
	default:
		return nil, fmt.Errorf("logging: unknown format %q: want text or json", format)
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name:       Name,
		Level:      lvl,
		Output:     w,
		JSONFormat: jsonFormat,
	})
	if jsonFormat {
		// encoding/json writes a time.Duration as its nanoseconds; the
		// text format and every other sokod output write "1m30s".
		return durationText{log}, nil
	}
	return log, nil
}

// durationText is a logger that writes time.Duration values as text
// ("250ms"), for the JSON format.
type durationText struct{ hclog.Logger }

// texts returns args with every time.Duration value as its String.
func texts(args []any) []any {
	var out []any // a copy, made at the first duration
	for i, a := range args {
		if d, ok := a.(time.Duration); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = d.String()
		}
	}
	if out == nil {
		return args
	}
	return out
}

func (l durationText) Log(level hclog.Level, msg string, args ...any) {
	l.Logger.Log(level, msg, texts(args)...)
}
func (l durationText) Trace(msg string, args ...any) { l.Logger.Trace(msg, texts(args)...) }
func (l durationText) Debug(msg string, args ...any) { l.Logger.Debug(msg, texts(args)...) }
func (l durationText) Info(msg string, args ...any)  { l.Logger.Info(msg, texts(args)...) }
func (l durationText) Warn(msg string, args ...any)  { l.Logger.Warn(msg, texts(args)...) }
func (l durationText) Error(msg string, args ...any) { l.Logger.Error(msg, texts(args)...) }

func (l durationText) With(args ...any) hclog.Logger {
	return durationText{l.Logger.With(texts(args)...)}
}
func (l durationText) Named(name string) hclog.Logger { return durationText{l.Logger.Named(name)} }
func (l durationText) ResetNamed(name string) hclog.Logger {
	return durationText{l.Logger.ResetNamed(name)}
}

// parseLevel maps a level name to its hclog level. hclog.LevelFromString is
// not used directly because it is case-insensitive and answers NoLevel, not
// an error, for names it does not know.
func parseLevel(level string) (hclog.Level, error) {
	switch level {
	case "trace":
		return hclog.Trace, nil
	case "debug":
		return hclog.Debug, nil
	case "", "info":
		return hclog.Info, nil
	case "warn":
		return hclog.Warn, nil
	case "error":
		return hclog.Error, nil
	case "off":
		return hclog.Off, nil
	}
	return hclog.NoLevel, fmt.Errorf("logging: unknown level %q: want trace, debug, info, warn, error or off", level)
}
