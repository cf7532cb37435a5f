// Package sdk is the public Go SDK for sokod plugins: heuristics, deadlock
// detectors and planners that run as separate processes and that the sokod
// daemon talks to through hashicorp/go-plugin over gRPC.
//
// A plugin implements one or more of the component interfaces, Heuristic,
// DeadlockDetector and Planner, with the plain request and response types of
// this package (the generated protocol types never appear in the API), and
// serves them with package pluginserver from its main:
//
//	func main() {
//		pluginserver.Serve(&sdk.Plugin{
//			Info:      sdk.Info{Name: "mine", Version: "1.0.0", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}},
//			Heuristic: myHeuristic{},
//		})
//	}
//
// The binary must be named sokod-plugin-NAME and placed in a directory the
// daemon searches (plugins.dirs). Package plugintest is a conformance suite
// to run against the built binary, and connects to a Plugin in-process for
// unit tests.
//
// The rule that keeps plugins fast: a round trip to the daemon costs far
// more than the search spends on one position, so there is never one call
// per position. A heuristic should compile, at Prepare, to HeuristicTables
// that the daemon evaluates natively; only knowledge that cannot be
// compiled answers batches of thousands of positions (States) through an
// Estimator. Deadlock detectors likewise return DeadlockTables, a Checker,
// or both. Planners run their own loop and call back into the daemon
// through Host, in batches too.
//
// The packages around this one: pluginserver is the plugin's end of the
// protocol, pluginclient the host's end (the daemon uses it), and
// internal/wire the conversions to and from the generated types that both
// share.
package sdk
