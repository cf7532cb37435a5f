// Command sokod-plugin-fess serves sokod's built-in "fess" planner as an
// external plugin. Build it under its plugin name and put it in a
// directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-fess ./plugins/planners/fess
//
// (scripts/build-plugins builds every plugin). The daemon then offers it as
// "plugin:fess", next to the built-in "fess".
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("fess", version) }
