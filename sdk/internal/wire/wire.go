// Package wire is what both ends of the plugin protocol share: the
// handshake, the gRPC options, the conversions between the SDK's plain types
// and the generated ones (proto/sokod/plugin/v1), and the mapping of errors
// to gRPC statuses. Package pluginserver (the plugin's end) and package
// pluginclient (the host's end) build on it; a plugin author never sees it.
package wire

import (
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// The handshake every sokod plugin and the host agree on. The magic cookie
// is not a secret: it only lets a plugin binary started by hand say that it
// is a plugin, instead of waiting for a host that is not there.
const (
	// ProtocolVersion is the version of the plugin protocol,
	// proto/sokod/plugin/v1. A host and a plugin with different versions
	// refuse each other at the handshake.
	ProtocolVersion = 1
	// MagicCookieKey is the environment variable the host sets for its
	// plugins.
	MagicCookieKey = "SOKOD_PLUGIN_MAGIC_COOKIE"
	// MagicCookieValue is its value.
	MagicCookieValue = "7c1f3a9e5d2b4c8f-sokod-plugin"
	// PluginSetKey is the name under which the host dispenses a plugin's
	// services from go-plugin.
	PluginSetKey = "sokod"
	// MaxMessageBytes bounds one gRPC message each way. gRPC's default of
	// 4 MiB is too small for the largest cost tables (16383 squares x 128
	// goals x 2 bytes) and for batches of thousands of positions.
	MaxMessageBytes = 256 << 20
)

// Handshake returns the go-plugin handshake of the sokod plugin protocol.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   MagicCookieKey,
		MagicCookieValue: MagicCookieValue,
	}
}

// ServerOptions are the gRPC server options for the protocol's services,
// on either side: the large message limit.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes)}
}

// DialOptions are the gRPC dial options for the protocol's clients: the
// large message limit.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes))}
}
