// Package sdk is the public Go SDK for sokod plugins: heuristics, deadlock
// detectors and planners that run as separate processes and that the sokod
// daemon talks to through hashicorp/go-plugin over gRPC.
//
// A plugin implements one or more of the component interfaces, Heuristic,
// DeadlockDetector and Planner, with the plain request and response types of
// this package (the generated protocol types never appear in the API), and
// calls Serve from its main:
//
//	func main() {
//		sdk.Serve(&sdk.Plugin{
//			Info:      sdk.Info{Name: "mine", Version: "1.0.0", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}},
//			Heuristic: myHeuristic{},
//		})
//	}
//
// The binary must be named sokod-plugin-NAME and placed in a directory the
// daemon searches (plugins.dirs). Package plugintest is a conformance suite
// to run against the built binary.
//
// The rule that keeps plugins fast: one round trip costs about 300
// microseconds while the search expands hundreds of thousands of positions
// a second, so there is never one call per position. A heuristic should
// compile, at Prepare, to HeuristicTables that the daemon evaluates
// natively; only knowledge that cannot be compiled answers batches of
// thousands of positions (States) through an Estimator. Deadlock detectors
// likewise return DeadlockTables, a Checker, or both. Planners run their own
// loop and call back into the daemon through Host, in batches too.
//
// The same package holds the host side, used by the daemon: Client
// implements the component interfaces by calling a plugin, validating every
// answer (ErrBadAnswer marks one that breaks the protocol).
package sdk
