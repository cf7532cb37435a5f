package batch

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	natsserver "github.com/nats-io/nats-server/v2/server"
)

// Server is an in-process NATS server with JetStream, for a batch on one
// machine with no NATS to set up.
type Server struct {
	ns  *natsserver.Server
	dir string
}

// ServerOptions configure StartServer.
type ServerOptions struct {
	// Dir holds JetStream's files: jobs, results and the batch table
	// survive a restart on the same directory.
	Dir string
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// Log receives the server's notices at debug level (warnings and
	// errors at theirs); nil means none.
	Log hclog.Logger
}

// StartServer starts a NATS server with JetStream on 127.0.0.1, storing in
// opts.Dir, and waits until it takes connections.
func StartServer(opts ServerOptions) (*Server, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("nats server: no directory")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	port := opts.Port
	if port == 0 {
		port = -1 // nats-server's "any free port"
	}
	ns, err := natsserver.NewServer(&natsserver.Options{
		ServerName: "sokod", Host: "127.0.0.1", Port: port,
		JetStream: true, StoreDir: dir,
		NoSigs: true, // signals are the embedding process's
	})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	if opts.Log != nil {
		ns.SetLoggerV2(logAdapter{opts.Log.Named("nats")}, false, false, false)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats server: not ready within 30s (store %s)", dir)
	}
	return &Server{ns: ns, dir: dir}, nil
}

// URL is the address clients connect to.
func (s *Server) URL() string { return s.ns.ClientURL() }

// Port is the loopback port the server listens on.
func (s *Server) Port() int {
	if a, ok := s.ns.Addr().(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

// Dir is the JetStream directory.
func (s *Server) Dir() string { return s.dir }

// Shutdown stops the server, flushing its streams to disk, and waits until
// it has stopped.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// logAdapter passes nats-server's log to hclog; its notices are routine
// (streams recovered, listening), so they go to debug.
type logAdapter struct{ log hclog.Logger }

func (a logAdapter) Noticef(format string, v ...any) { a.log.Debug(fmt.Sprintf(format, v...)) }
func (a logAdapter) Warnf(format string, v ...any)   { a.log.Warn(fmt.Sprintf(format, v...)) }
func (a logAdapter) Fatalf(format string, v ...any)  { a.log.Error(fmt.Sprintf(format, v...)) }
func (a logAdapter) Errorf(format string, v ...any)  { a.log.Error(fmt.Sprintf(format, v...)) }
func (a logAdapter) Debugf(format string, v ...any)  { a.log.Trace(fmt.Sprintf(format, v...)) }
func (a logAdapter) Tracef(format string, v ...any)  { a.log.Trace(fmt.Sprintf(format, v...)) }
