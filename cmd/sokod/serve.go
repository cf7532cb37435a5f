package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/server"
)

// socketPath is the daemon's Unix socket: listen.unix, else the default
// (server.DefaultSocketPath). The daemon and its clients resolve it alike.
func socketPath(env *Env) string {
	if env.Config.Listen.Unix != "" {
		return env.Config.Listen.Unix
	}
	return server.DefaultSocketPath(os.Getenv)
}

func serveCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the daemon: the gRPC API on a Unix socket and, if configured, loopback TCP.",
		Long: "Run the daemon: the gRPC API (sokod.v1.SolverService, health, reflection) on the Unix\n" +
			"socket listen.unix (default $XDG_RUNTIME_DIR/sokod.sock) and, when listen.tcp is set, on\n" +
			"loopback TCP. Solves run at most server.max_jobs at once within server.memory_cap, with\n" +
			"server.queue more waiting. SIGINT or SIGTERM cancel the jobs (their clients get CANCELLED),\n" +
			"stop the server within server.shutdown_timeout and the plugins, and exit 0.",
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd.Context(), env)
		},
	}
}

// serve runs the daemon until ctx ends (SIGINT, SIGTERM).
func serve(ctx context.Context, env *Env) error {
	cfg := env.Config
	reg, host, closeHost := openRegistry(env)
	// Deferred first, so it runs last: no plugin outlives the daemon, and
	// none is stopped while a job may still use it.
	defer closeHost()
	srv, err := server.New(server.Options{
		Components: reg,
		Limits:     server.Limits{Time: cfg.Limits.Time, Memory: int64(cfg.Limits.Memory), Nodes: int64(min(cfg.Limits.Nodes, 1<<62))},
		Planners:   cfg.Fallback.Planners, SearchShare: cfg.Fallback.SearchShare, PlannerShare: cfg.Fallback.PlannerShare, Portfolio: cfg.Fallback.Portfolio,
		MaxJobs: cfg.Server.MaxJobs, Queue: cfg.Server.Queue, MemoryCap: int64(cfg.Server.MemoryCap),
		ShutdownTimeout: cfg.Server.ShutdownTimeout,
		Log:             env.Log, Clock: env.Now,
	})
	if err != nil {
		return err
	}
	path := socketPath(env)
	ul, err := server.ListenUnix(path, cfg.Listen.SocketGroup)
	if err != nil {
		return err
	}
	listeners := []net.Listener{ul}
	if cfg.Listen.TCP != "" {
		tl, err := server.ListenTCP(cfg.Listen.TCP)
		if err != nil {
			_ = ul.Close()
			return err
		}
		listeners = append(listeners, tl)
		env.Log.Info("listening", "tcp", tl.Addr().String())
	}
	env.Log.Info("listening", "unix", path)
	// Plugins start now rather than at first use, so a broken one shows in
	// the log at once; one that fails is retried in the background and
	// never stops the daemon.
	if err := host.Start(ctx); err != nil {
		env.Log.Warn("plugins not all started", "error", err)
	}
	for _, w := range host.Warnings() {
		env.Log.Warn("plugin discovery", "warning", w)
	}
	if err := srv.Serve(ctx, listeners...); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	env.Log.Info("daemon stopped")
	return nil
}
