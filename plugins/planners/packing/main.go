// Command sokod-plugin-packing serves sokod's built-in "packing" planner as an
// external plugin. Build it under its plugin name and put it in a
// directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-packing ./plugins/planners/packing
//
// (scripts/build-plugins builds every plugin). The daemon then offers it as
// "plugin:packing", next to the built-in "packing".
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("packing", version) }
