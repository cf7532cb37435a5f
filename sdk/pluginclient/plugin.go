// Package pluginclient is the host's end of the sokod plugin protocol: the
// daemon's connection to one plugin process, whose components implement
// the same interfaces as the plugin's own (sdk.Heuristic,
// sdk.DeadlockDetector, sdk.Planner), so the host uses built-in and
// external components alike. Every answer is validated; one that breaks
// the protocol is an error wrapping sdk.ErrBadAnswer. A planner's calls
// back (sdk.Host) are served to it through the go-plugin broker for the
// length of each plan.
package pluginclient

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sokod/sokod/sdk/internal/wire"
)

// The protocol's constants a host needs to start plugins.
const (
	// PluginSetKey is the name under which the host dispenses a plugin's
	// services from go-plugin.
	PluginSetKey = wire.PluginSetKey
	// MagicCookieKey is the environment variable the host sets for its
	// plugins; a plugin started without it refuses to run.
	MagicCookieKey = wire.MagicCookieKey
)

// Handshake returns the go-plugin handshake of the sokod plugin protocol.
func Handshake() plugin.HandshakeConfig { return wire.Handshake() }

// DialOptions are the gRPC dial options for a plugin's connection: the
// protocol's large message limit.
func DialOptions() []grpc.DialOption { return wire.DialOptions() }

// PluginSet returns the go-plugin plugin set a host starts plugins with;
// dispensing PluginSetKey from it gives a *Client.
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{PluginSetKey: &Plugin{}}
}

// Plugin is the go-plugin Plugin of the host's end: it dials only.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer fails: the host serves nothing under the plugin's key.
func (*Plugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("pluginclient: the host's end serves nothing; use pluginserver")
}

// GRPCClient returns a *Client over conn.
func (*Plugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return New(conn, broker), nil
}
