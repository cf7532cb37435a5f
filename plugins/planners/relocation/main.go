// Command sokod-plugin-relocation serves sokod's built-in "relocation"
// planner as an external plugin. Build it under its plugin name and put it
// in a directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-relocation ./plugins/planners/relocation
//
// (scripts/build-plugins builds every plugin). The daemon then offers it as
// "plugin:relocation", next to the built-in "relocation".
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("relocation", version) }
