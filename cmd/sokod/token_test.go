package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// freePort returns a loopback address nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestTCPToken: with listen.tcp set the daemon writes its token beside the
// socket, mode 0600; sokod's own client reads it and solves over TCP, and
// a client without it is UNAUTHENTICATED (any local user could reach the
// port and cancel any job before).
func TestTCPToken(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "s.sock")
	addr := freePort(t)
	startDaemon(t, sock, "SOKOD_LISTEN_TCP="+addr)
	fi, err := os.Stat(filepath.Join(dir, "sokod.token"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	r := runBin(t, []string{"SOKOD_LISTEN_UNIX=" + sock}, "solve", example, "--remote", addr)
	if r.code != 0 {
		t.Errorf("solve --remote %s: exit %d\n%s%s", addr, r.code, r.stdout, r.stderr)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = sokodv1.NewSolverServiceClient(conn).ListJobs(deadlineContext(t), &sokodv1.ListJobsRequest{})
	if status.Code(err) != codes.Unauthenticated {
		t.Errorf("a call without the token: %v, want Unauthenticated", err)
	}
}
