// Package pluginv1 is the Go code generated from plugin.proto, the protocol
// between the sokod daemon and its plugin processes. Plugin authors use the
// plain Go API of package github.com/sokod/sokod/sdk instead; only the SDK's
// adapters and the host touch these types.
//
// Regenerate with `go generate ./proto/...` from the repository root.
package pluginv1
