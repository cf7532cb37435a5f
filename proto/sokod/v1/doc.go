// Package sokodv1 is the Go code generated from solver.proto, the daemon
// API that GUIs, scripts and the sokod CLI use to talk to `sokod serve`.
// The daemon's side is internal/server; cmd/sokod's --remote is a client.
//
// Regenerate with `go generate ./proto/...` from the repository root.
package sokodv1
