// Command sokod-plugin-deadsquares serves the engine's dead-square analysis
// (the squares from which a lone box can reach no goal) as an external
// deadlock detector plugin that compiles to tables. Build it under its
// plugin name and put it in a directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-deadsquares ./plugins/deadlocks/deadsquares
//
// The daemon lists it (sokod plugins list); the search applies the same
// analysis itself and does not take external deadlock tables yet.
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.ServeDeadSquares(version) }
