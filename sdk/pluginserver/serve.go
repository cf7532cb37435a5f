// Package pluginserver is the plugin's end of the sokod plugin protocol: it
// serves the components of an sdk.Plugin over go-plugin's gRPC transport,
// and gives a planner the host's primitives (sdk.Host) through the
// go-plugin broker. A plugin's main calls Serve:
//
//	func main() {
//		pluginserver.Serve(&sdk.Plugin{
//			Info:      sdk.Info{Name: "mine", Version: "1.0.0", Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}},
//			Heuristic: myHeuristic{},
//		})
//	}
//
// Every request is validated before a component sees it; a request that
// breaks the protocol is answered with codes.InvalidArgument.
package pluginserver

import (
	"context"
	"errors"
	"os"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/internal/wire"
)

// Serve serves p to the host that started this process and returns when
// the host is done with it. A plugin run by hand, without the host's
// handshake, says so on standard error and exits with status 1, as does a
// Plugin that does not validate.
func Serve(p *sdk.Plugin) {
	logger := p.Logger
	if logger == nil {
		logger = sdk.NewLogger(p.Info.Name)
	}
	set, err := PluginSet(p)
	if err != nil {
		logger.Error("cannot serve plugin", "error", err)
		os.Exit(1)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake(),
		Plugins:         set,
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, wire.ServerOptions()...)...)
		},
		Logger: logger,
	})
}

// PluginSet returns the go-plugin plugin set that serves p, for Serve and
// for tests that connect to p in-process (plugintest.Connect). It fails
// when p does not validate.
func PluginSet(p *sdk.Plugin) (plugin.PluginSet, error) {
	info, err := p.ResolvedInfo()
	if err != nil {
		return nil, err
	}
	pi, err := wire.InfoToProto(info)
	if err != nil {
		return nil, err
	}
	return plugin.PluginSet{wire.PluginSetKey: &Plugin{impl: p, info: pi}}, nil
}

// Plugin is the go-plugin Plugin that serves one sdk.Plugin. It serves
// only: the host's end is package pluginclient's.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *sdk.Plugin
	info *pb.InfoResponse
}

// GRPCServer registers the services of the components p has.
func (g *Plugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
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

// GRPCClient fails: a plugin does not dial itself.
func (g *Plugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("pluginserver: the plugin's end has no client; use pluginclient")
}
