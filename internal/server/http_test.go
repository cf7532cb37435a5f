package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
	"github.com/sokod/sokod/proto/sokod/v1/sokodv1connect"
)

// startHTTP serves opts on an HTTP listener on loopback, with a stand-in
// web app at /, and returns its base URL.
func startHTTP(t *testing.T, opts Options) string {
	t.Helper()
	if opts.Components == nil {
		opts.Components = testComponents()
	}
	if opts.Limits.Time == 0 {
		opts.Limits = Limits{Time: time.Minute, Memory: 256 << 20}
	}
	opts.Web = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "the web app") })
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, HTTP(l)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + l.Addr().String()
}

// h2cClient speaks HTTP/2 without TLS, as gRPC over plain TCP does.
func h2cClient() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}}
}

func TestConnectProtocols(t *testing.T) {
	base := startHTTP(t, Options{})
	ctx := testContext(t)
	small := readFile(t, "testdata/small.xsb")
	tests := []struct {
		name   string
		client *http.Client
		opts   []connect.ClientOption
	}{
		{"connect", http.DefaultClient, nil},
		{"connect json", http.DefaultClient, []connect.ClientOption{connect.WithProtoJSON()}},
		{"grpc-web", http.DefaultClient, []connect.ClientOption{connect.WithGRPCWeb()}},
		{"grpc", h2cClient(), []connect.ClientOption{connect.WithGRPC()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := sokodv1connect.NewSolverServiceClient(tc.client, base, tc.opts...)
			stream, err := c.Solve(ctx, connect.NewRequest(&sokodv1.SolveRequest{Level: small, LevelNumber: 1}))
			if err != nil {
				t.Fatal(err)
			}
			var res *sokodv1.Result
			accepted := false
			for stream.Receive() {
				accepted = accepted || stream.Msg().GetAccepted() != nil
				if r := stream.Msg().GetResult(); r != nil {
					res = r
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if !accepted {
				t.Error("no Accepted event")
			}
			checkSolution(t, small, 1, res)
			info, err := c.GetServerInfo(ctx, connect.NewRequest(&sokodv1.GetServerInfoRequest{}))
			if err != nil || info.Msg.Name != "sokod" {
				t.Errorf("GetServerInfo: %v, %v", info, err)
			}
			_, err = c.Cancel(ctx, connect.NewRequest(&sokodv1.CancelRequest{JobId: "none"}))
			var ce *connect.Error
			if !errors.As(err, &ce) || ce.Code() != connect.CodeNotFound || len(ce.Details()) != 1 {
				t.Errorf("Cancel of no job: %v, want NotFound with an ErrorInfo", err)
			}
		})
	}
}

func TestGRPCClientOverHTTPListener(t *testing.T) {
	base := startHTTP(t, Options{})
	ctx := testContext(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	v, err := sokodv1.NewSolverServiceClient(conn).Verify(ctx, &sokodv1.VerifyRequest{Level: "#####\n#@$.#\n#####\n", Solution: "R"})
	if err != nil || !v.Valid {
		t.Errorf("Verify over the HTTP listener: %v, %v", v, err)
	}
}

// TestHTTPBadInput sends what a broken or hostile client would: every
// answer is a clear status with a Connect error body, and the daemon
// serves on afterwards.
func TestHTTPBadInput(t *testing.T) {
	base := startHTTP(t, Options{MaxRequestBytes: 1 << 16})
	host := strings.TrimPrefix(base, "http://")
	verify := base + "/sokod.v1.SolverService/Verify"
	tests := []struct {
		name       string
		method     string
		url        string
		body       string
		header     map[string]string
		wantStatus int
		wantCode   string // the Connect error code in the body, if any
	}{
		{"malformed JSON", "POST", verify, `{"level": `, nil, 400, "invalid_argument"},
		{"unknown field", "POST", verify, `{"level": "#", "solutoin": "r"}`, nil, 400, "invalid_argument"},
		{"wrong type", "POST", verify, `{"level": 7}`, nil, 400, "invalid_argument"},
		{"oversized body", "POST", verify, `{"level": "` + strings.Repeat("#", 1<<17) + `"}`, nil, 429, "resource_exhausted"},
		{"unknown method", "POST", base + "/sokod.v1.SolverService/Explode", `{}`, nil, 404, ""},
		{"unsupported content type", "POST", verify, `level=1`, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, ""},
		{"GET of an RPC", "GET", verify, ``, nil, 405, ""},
		{"foreign host", "POST", verify, `{}`, map[string]string{"Host": "evil.example"}, 421, ""},
		{"foreign origin", "POST", verify, `{}`, map[string]string{"Origin": "http://evil.example"}, 403, ""},
		{"own origin", "POST", verify, `{"level": "#####\n#@$.#\n#####\n", "solution": "R"}`, map[string]string{"Origin": base}, 200, ""},
		{"the app", "GET", base + "/", ``, map[string]string{"Host": "localhost:" + host[strings.LastIndex(host, ":")+1:]}, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.method == "POST" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tc.header {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d; body %s", resp.StatusCode, tc.wantStatus, body)
			}
			if tc.wantCode != "" {
				var e struct{ Code, Message string }
				if err := json.Unmarshal(body, &e); err != nil || e.Code != tc.wantCode || e.Message == "" {
					t.Errorf("body %s: want a Connect error %q with a message", body, tc.wantCode)
				}
			}
		})
	}
}
