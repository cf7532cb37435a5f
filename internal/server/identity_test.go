package server

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
	"github.com/sokod/sokod/proto/sokod/v1/sokodv1connect"
)

// TestJobIDsAreNotGuessable: ids are 128 random bits, not the admission
// number (any local user could cancel job 1, 2, 3...).
func TestJobIDsAreNotGuessable(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	hexID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 3 {
		stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: "#####\n#@$.#\n#####\n"})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := recvAll(stream)
		if err != nil {
			t.Fatal(err)
		}
		id := ev.accepted.GetJobId()
		if !hexID.MatchString(id) || seen[id] {
			t.Errorf("job id %q: want 32 hex digits, never repeated", id)
		}
		seen[id] = true
	}
}

// TestCancelAndWatchAreTheOwners: another client's Cancel and Watch of a
// job are PERMISSION_DENIED; its owner's and an operator's go through.
func TestCancelAndWatchAreTheOwners(t *testing.T) {
	ts := startServer(t, Options{})
	owner := principal{name: "uid 1001"}
	ctx := withPrincipal(testContext(t), owner)
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	id := make(chan string, 1)
	go func() {
		_ = ts.srv.solve(jctx, longRequest(t), func(r *sokodv1.SolveResponse) error {
			if a := r.GetAccepted(); a != nil {
				id <- a.GetJobId()
			}
			return nil
		})
	}()
	job := <-id
	v := &service{s: ts.srv}
	other := withPrincipal(ctx, principal{name: "uid 1002"})
	if _, err := v.Cancel(other, &sokodv1.CancelRequest{JobId: job}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("another user's Cancel: %v, want PermissionDenied", err)
	}
	if err := ts.srv.watchJob(other, job, func(*sokodv1.SolveResponse) error { return nil }); status.Code(err) != codes.PermissionDenied {
		t.Errorf("another user's Watch: %v, want PermissionDenied", err)
	}
	operator := withPrincipal(ctx, principal{name: "uid 0", operator: true})
	if _, err := v.Cancel(operator, &sokodv1.CancelRequest{JobId: job}); err != nil {
		t.Errorf("an operator's Cancel: %v", err)
	}
}

// TestPeerCredentials: on the Unix socket the daemon knows the caller's
// uid from the kernel.
func TestPeerCredentials(t *testing.T) {
	dir := shortTemp(t)
	l, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := net.Dial("unix", filepath.Join(dir, "s.sock")); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, info, err := peerCreds{}.ServerHandshake(c)
	if err != nil {
		t.Fatal(err)
	}
	pi := info.(peerInfo)
	if !pi.unix || !pi.known || pi.uid != os.Geteuid() {
		t.Errorf("peer %+v, want the unix peer uid %d", pi, os.Geteuid())
	}
}

// TestTCPNeedsTheToken: gRPC over loopback TCP, which every local user can
// reach, answers only calls that carry the daemon's token.
func TestTCPNeedsTheToken(t *testing.T) {
	srv, err := New(Options{Components: testComponents(), Limits: Limits{Time: 10 * time.Second, Memory: 64 << 20}, Token: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, tl) }()
	defer func() { cancel(); <-errc }()
	for _, tt := range []struct {
		token string
		code  codes.Code
	}{{"", codes.Unauthenticated}, {"wrong", codes.Unauthenticated}, {"secret", codes.OK}} {
		opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		if tt.token != "" {
			opts = append(opts, grpc.WithPerRPCCredentials(TokenCredentials(tt.token)))
		}
		conn, err := grpc.NewClient(tl.Addr().String(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sokodv1.NewSolverServiceClient(conn).ListJobs(ctx, &sokodv1.ListJobsRequest{})
		if status.Code(err) != tt.code {
			t.Errorf("token %q: %v, want %v", tt.token, err, tt.code)
		}
		conn.Close()
	}
}

// TestHTTPSessionsOwnTheirJobs: over HTTP a job belongs to the browser
// session (cookie) that started it.
func TestHTTPSessionsOwnTheirJobs(t *testing.T) {
	base := startHTTP(t, Options{})
	ctx := testContext(t)
	session := func() sokodv1connect.SolverServiceClient {
		jar, _ := cookiejar.New(nil)
		return sokodv1connect.NewSolverServiceClient(&http.Client{Jar: jar}, base)
	}
	a, b := session(), session()
	// A first call gets the session's cookie.
	if _, err := a.ListJobs(ctx, connect.NewRequest(&sokodv1.ListJobsRequest{})); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ListJobs(ctx, connect.NewRequest(&sokodv1.ListJobsRequest{})); err != nil {
		t.Fatal(err)
	}
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := a.Solve(jctx, connect.NewRequest(longRequest(t)))
	if err != nil {
		t.Fatal(err)
	}
	if !stream.Receive() {
		t.Fatal(stream.Err())
	}
	job := stream.Msg().GetAccepted().GetJobId()
	if _, err := b.Cancel(ctx, connect.NewRequest(&sokodv1.CancelRequest{JobId: job})); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Errorf("another session's Cancel: %v, want permission denied", err)
	}
	if _, err := a.Cancel(ctx, connect.NewRequest(&sokodv1.CancelRequest{JobId: job})); err != nil {
		t.Errorf("the owner's Cancel: %v", err)
	}
}
