package sdk

import (
	"fmt"
	"os"
	"slices"

	"github.com/hashicorp/go-hclog"
)

// LogLevelEnv is the environment variable through which the host passes its
// log level to plugins, so they do not send what it would drop.
const LogLevelEnv = "SOKOD_PLUGIN_LOG_LEVEL"

// Plugin is what one plugin process serves: its description and at most one
// component of each kind.
type Plugin struct {
	// Info describes the plugin. Kinds may be left empty: Serve derives
	// them from the components set below.
	Info Info
	// Heuristic, Deadlocks and Planner are the components; nil means the
	// kind is not served.
	Heuristic Heuristic
	Deadlocks DeadlockDetector
	Planner   Planner
	// Logger is the plugin's logger; nil means NewLogger(Info.Name).
	Logger hclog.Logger
}

// ResolvedInfo returns p.Info with its kinds filled in from the
// components and validated: what the plugin declares to the host.
func (p *Plugin) ResolvedInfo() (*Info, error) {
	var kinds []Kind
	if p.Heuristic != nil {
		kinds = append(kinds, KindHeuristic)
	}
	if p.Deadlocks != nil {
		kinds = append(kinds, KindDeadlock)
	}
	if p.Planner != nil {
		kinds = append(kinds, KindPlanner)
	}
	info := p.Info
	if len(info.Kinds) == 0 {
		info.Kinds = kinds
	}
	if !slices.Equal(sortedKinds(info.Kinds), sortedKinds(kinds)) {
		return nil, fmt.Errorf("plugin %s declares kinds %v but has components %v", info.Name, info.Kinds, kinds)
	}
	if err := info.Validate(); err != nil {
		return nil, err
	}
	return &info, nil
}

// NewLogger returns the logger a plugin logs through: hclog JSON lines on
// the process's standard error, which the host reads, parses and re-emits
// under its own logger at the same level. The level comes from the host
// through LogLevelEnv (info when unset).
//
// Call it before pluginserver.Serve: Serve redirects os.Stderr, and a
// logger made afterwards would write into that redirection, which the host
// discards.
func NewLogger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(LogLevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      level,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}
