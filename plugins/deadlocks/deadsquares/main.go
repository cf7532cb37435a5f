// Command sokod-plugin-deadsquares serves the engine's dead-square analysis
// (the squares from which a lone box can reach no goal) as an external
// deadlock detector plugin that compiles to tables. Build it under its
// plugin name and put it in a directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-deadsquares ./plugins/deadlocks/deadsquares
//
// `sokod solve --deadlock deadsquares` applies its tables in the search. The
// engine computes the same dead squares itself, so the plugin adds no
// pruning; it shows the protocol and measures its cost.
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve(builtinplugin.DeadSquaresName, version) }
