package sdk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
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
	// LogLevelEnv is the environment variable through which the host
	// passes its log level to plugins, so they do not send what it would
	// drop.
	LogLevelEnv = "SOKOD_PLUGIN_LOG_LEVEL"
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

// Plugin is what one plugin process serves: its description and at most one
// component of each kind.
type Plugin struct {
	// Info describes the plugin. Kinds may be left empty: Serve derives
	// them from the components set below.
	Info Info
	// Heuristic, Deadlocks and Planner are the components; nil means the
	// kind is not served.
	Heuristic Heuristic
	Deadlocks DeadlockDetector
	Planner   Planner
	// Logger is the plugin's logger; nil means NewLogger(Info.Name).
	Logger hclog.Logger
}

// info returns p.Info with the kinds filled in and validated.
func (p *Plugin) info() (*Info, error) {
	var kinds []Kind
	if p.Heuristic != nil {
		kinds = append(kinds, KindHeuristic)
	}
	if p.Deadlocks != nil {
		kinds = append(kinds, KindDeadlock)
	}
	if p.Planner != nil {
		kinds = append(kinds, KindPlanner)
	}
	info := p.Info
	if len(info.Kinds) == 0 {
		info.Kinds = kinds
	}
	if !slices.Equal(sortedKinds(info.Kinds), sortedKinds(kinds)) {
		return nil, fmt.Errorf("plugin %s declares kinds %v but has components %v", info.Name, info.Kinds, kinds)
	}
	if err := info.Validate(); err != nil {
		return nil, err
	}
	return &info, nil
}

// grpcPlugin is the go-plugin Plugin for the sokod protocol. On the plugin
// side impl is set and GRPCServer registers its services; on the host side
// GRPCClient returns a *Client.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *Plugin
	info *pb.InfoResponse
}

func (g *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	if g.impl == nil {
		return errors.New("sdk: no plugin to serve")
	}
	pb.RegisterPluginServiceServer(s, &infoServer{info: g.info})
	if g.impl.Heuristic != nil {
		pb.RegisterHeuristicServiceServer(s, &heuristicServer{impl: g.impl.Heuristic})
	}
	if g.impl.Deadlocks != nil {
		pb.RegisterDeadlockServiceServer(s, &deadlockServer{impl: g.impl.Deadlocks})
	}
	if g.impl.Planner != nil {
		pb.RegisterPlannerServiceServer(s, &plannerServer{impl: g.impl.Planner, broker: broker})
	}
	return nil
}

func (g *grpcPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return NewClient(conn, broker), nil
}

// PluginSet returns the go-plugin plugin set of the protocol. The host
// passes nil and dispenses PluginSetKey to get a *Client; a plugin passes
// what it serves (Serve does that) and so do in-process tests.
func PluginSet(p *Plugin) (plugin.PluginSet, error) {
	g := &grpcPlugin{}
	if p != nil {
		info, err := p.info()
		if err != nil {
			return nil, err
		}
		g.impl = p
		if g.info, err = infoToProto(info); err != nil {
			return nil, err
		}
	}
	return plugin.PluginSet{PluginSetKey: g}, nil
}

// NewLogger returns the logger a plugin logs through: hclog JSON lines on
// the process's standard error, which the host reads, parses and re-emits
// under its own logger at the same level. The level comes from the host
// through LogLevelEnv (info when unset).
//
// Call it before Serve: Serve redirects os.Stderr, and a logger made
// afterwards would write into that redirection, which the host discards.
func NewLogger(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(LogLevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      level,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}

// Serve serves p to the host that started this process, over go-plugin's
// gRPC transport, and returns when the host is done with it. It is what a
// plugin's main calls. A plugin run by hand, without the host's handshake,
// says so on standard error and exits with status 1, as does a Plugin that
// does not validate.
func Serve(p *Plugin) {
	logger := p.Logger
	if logger == nil {
		logger = NewLogger(p.Info.Name)
	}
	set, err := PluginSet(p)
	if err != nil {
		logger.Error("cannot serve plugin", "error", err)
		os.Exit(1)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         set,
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, ServerOptions()...)...)
		},
		Logger: logger,
	})
}
