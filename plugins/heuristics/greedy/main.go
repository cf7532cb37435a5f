// Command sokod-plugin-greedy serves sokod's built-in "greedy" heuristic as an
// external plugin, computing the same tables in its own process. Build it
// under its plugin name and put it in a directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-greedy ./plugins/heuristics/greedy
//
// The daemon then offers it as "plugin:greedy", next to the built-in "greedy".
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("greedy", version) }
