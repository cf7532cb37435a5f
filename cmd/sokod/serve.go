package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/render"
	"github.com/sokod/sokod/internal/server"
	"github.com/sokod/sokod/web"
)

// tokenPath is where the daemon writes its token and clients read it:
// listen.token_file, else sokod.token beside the socket.
func tokenPath(env *Env) string {
	if env.Config.Listen.TokenFile != "" {
		return env.Config.Listen.TokenFile
	}
	return filepath.Join(filepath.Dir(socketPath(env)), server.TokenFileName)
}

// socketPath is the daemon's Unix socket: listen.unix, else the default
// (server.DefaultSocketPath). The daemon and its clients resolve it alike.
func socketPath(env *Env) string {
	if env.Config.Listen.Unix != "" {
		return env.Config.Listen.Unix
	}
	return server.DefaultSocketPath(os.Getenv)
}

func serveCommand(env *Env) *cobra.Command {
	var socket, tcp, httpAddr, metricsAddr string
	cmd := &cobra.Command{
		Use:   "serve [--socket PATH] [--tcp HOST:PORT] [--http HOST:PORT] [--metrics HOST:PORT]",
		Short: "Run the daemon: the gRPC API on a Unix socket and, if configured, loopback TCP and HTTP.",
		Long: "Run the daemon: the gRPC API (sokod.v1.SolverService, health, reflection) on the Unix\n" +
			"socket listen.unix (default $XDG_RUNTIME_DIR/sokod.sock) and, when listen.tcp is set, on\n" +
			"loopback TCP. When listen.http is set, the same service over HTTP with Connect (also\n" +
			"gRPC-Web and gRPC) and the web app at http://HOST:PORT/. With listen.metrics, Prometheus\n" +
			"metrics at http://HOST:PORT/metrics. TCP and HTTP clients present the token the daemon\n" +
			"writes to listen.token_file. Solves run at most server.max_jobs at once within\n" +
			"server.memory_cap, with server.queue more waiting.\n" +
			"SIGINT or SIGTERM cancel the jobs (their clients get CANCELLED), stop the server within\n" +
			"server.shutdown_timeout and the plugins, and exit 0.",
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The flags override listen.* from every other layer.
			cfg := *env.Config
			for _, f := range []struct {
				name string
				dst  *string
				val  string
			}{{"socket", &cfg.Listen.Unix, socket}, {"tcp", &cfg.Listen.TCP, tcp}, {"http", &cfg.Listen.HTTP, httpAddr}, {"metrics", &cfg.Listen.Metrics, metricsAddr}} {
				if cmd.Flags().Changed(f.name) {
					*f.dst = f.val
				}
			}
			if err := cfg.Validate(); err != nil {
				return withCode(exitUsage, err)
			}
			env.Config = &cfg
			return serve(cmd.Context(), env)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "Unix socket path (listen.unix)")
	cmd.Flags().StringVar(&tcp, "tcp", "", "also serve gRPC on this loopback host:port (listen.tcp); \"\" for none")
	cmd.Flags().StringVar(&httpAddr, "http", "", "also serve HTTP (Connect, gRPC-Web, gRPC, the web app) on this loopback host:port (listen.http); \"\" for none")
	cmd.Flags().StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics at /metrics on this loopback host:port (listen.metrics); \"\" for none")
	return cmd
}

// serve runs the daemon until ctx ends (SIGINT, SIGTERM).
func serve(ctx context.Context, env *Env) error {
	cfg := env.Config
	reg, host, closeHost := openRegistry(env)
	// Deferred first, so it runs last: no plugin outlives the daemon, and
	// none is stopped while a job may still use it.
	defer closeHost()
	app, err := web.Handler(render.DefaultTheme())
	if err != nil {
		return err
	}
	st, closeStore, err := openStore(ctx, env)
	if err != nil {
		return err
	}
	defer closeStore()
	opts := server.Options{
		Components: reg,
		Limits:     server.Limits{Time: cfg.Limits.Time, Memory: int64(cfg.Limits.Memory), Nodes: int64(min(cfg.Limits.Nodes, 1<<62))},
		Planners:   cfg.Fallback.Planners, SearchShare: cfg.Fallback.SearchShare, PlannerShare: cfg.Fallback.PlannerShare, Portfolio: cfg.Fallback.Portfolio,
		BatchSize: cfg.Search.BatchSize,
		MaxJobs:   cfg.Server.MaxJobs, Queue: cfg.Server.Queue, MemoryCap: int64(cfg.Server.MemoryCap),
		ShutdownTimeout: cfg.Server.ShutdownTimeout,
		Version:         version, Web: app,
		Log: env.Log, Clock: env.Now,
	}
	if st != nil {
		opts.Store = st
		env.Log.Info("solution store", "path", st.Path())
	}
	opts.MaxRequestBytes = int(cfg.Server.MaxRequestBytes)
	if cfg.Listen.TCP != "" || cfg.Listen.HTTP != "" {
		// Loopback TCP is open to every local user: calls there carry the
		// token, which only the daemon's user can read.
		opts.Token = server.NewToken()
	}
	srv, err := server.New(opts)
	if err != nil {
		return err
	}
	budgets := int64(cfg.Server.MemoryCap)
	if budgets == 0 {
		jobs := cfg.Server.MaxJobs
		if jobs <= 0 {
			jobs = runtime.NumCPU()
		}
		budgets = int64(jobs) * int64(cfg.Limits.Memory)
	}
	env.limitMemory(budgets)
	path := socketPath(env)
	ul, err := server.ListenUnix(path, cfg.Listen.SocketGroup)
	if err != nil {
		return err
	}
	if opts.Token != "" {
		tp := tokenPath(env)
		if err := server.WriteTokenFile(tp, opts.Token); err != nil {
			_ = ul.Close()
			return err
		}
		defer os.Remove(tp)
		env.Log.Info("token for TCP and HTTP clients", "file", tp)
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
	if cfg.Listen.HTTP != "" {
		hl, err := server.ListenTCP(cfg.Listen.HTTP)
		if err != nil {
			for _, l := range listeners {
				_ = l.Close()
			}
			return err
		}
		listeners = append(listeners, server.HTTP(hl))
		env.Log.Info("listening", "http", hl.Addr().String(), "app", "http://"+hl.Addr().String()+"/")
	}
	env.Log.Info("listening", "unix", path)
	if cfg.Listen.Metrics != "" {
		if err := serveMetrics(ctx, env, cfg.Listen.Metrics, metricsRegistry(srv, host)); err != nil {
			for _, l := range listeners {
				_ = l.Close()
			}
			return err
		}
	}
	// Plugins start now rather than at first use, so a broken one shows in
	// the log at once; one that fails is retried in the background and
	// never stops the daemon. They start beside serving: one that hangs at
	// start must not hold the daemon's readiness for its start timeout,
	// and a request that names a plugin still starting waits for it.
	go func() {
		if err := host.Start(ctx); err != nil {
			env.Log.Warn("plugins not all started", "error", err)
		}
	}()
	for _, w := range host.Warnings() {
		env.Log.Warn("plugin discovery", "warning", w)
	}
	if err := srv.Serve(ctx, listeners...); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	env.Log.Info("daemon stopped")
	return nil
}
