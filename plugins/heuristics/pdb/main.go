// Command sokod-plugin-pdb is a heuristic plugin that builds a small
// pattern database per level and hands it to the host as penalty
// patterns. At Prepare it searches backwards from the solved positions,
// pulling boxes, until it has seen maxStates positions, and so knows the
// exact pushes left of every position within that many pushes of the
// goal. Each box placement it has seen becomes one pattern: its squares,
// and the pushes the matching bound misses there, the least over the
// player's regions (a region it has not reached counts as one push beyond
// the last complete layer). A pattern holds every box, so one pattern at
// most matches a position, and the matching bound plus that penalty never
// exceeds the pushes left: the heuristic stays admissible and proves
// push-optimality. The costs are the built-in matching's, so the bound is
// never below it. Build it under its plugin name:
//
//	go build -o DIR/sokod-plugin-pdb ./plugins/heuristics/pdb
package main

import (
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginserver"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	pluginserver.Serve(&sdk.Plugin{
		Info: sdk.Info{Name: "pdb", Version: version,
			Summary:      "the matching bound plus a pattern database of the positions near the goal, as penalty patterns",
			Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}},
		Heuristic: pdb{maxStates: defaultMaxStates},
		Logger:    sdk.NewLogger("pdb"),
	})
}
