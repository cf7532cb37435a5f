// Command sokod-plugin-matching-batch serves sokod's built-in "matching"
// heuristic in batches: Prepare compiles the tables inside the plugin and
// answers with an estimator, and the search sends it its children in
// Estimate calls of search.batch_size positions. The same bound as the
// built-in, through the path a learned model would take: the measure of
// what batching costs. Build it under its plugin name:
//
//	go build -o DIR/sokod-plugin-matching-batch ./plugins/heuristics/matching-batch
package main

import "github.com/sokod/sokod/plugins/internal/builtinplugin"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() { builtinplugin.Serve("matching-batch", version) }
