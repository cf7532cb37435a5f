// Command sokod-plugin-simple serves sokod's built-in "simple" heuristic as an
// external plugin, computing the same tables in its own process. Build it
// under its plugin name and put it in a directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-simple ./plugins/heuristics/simple
//
// The daemon then offers it as "plugin:simple", next to the built-in "simple".
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("simple", version) }
