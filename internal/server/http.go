package server

import (
	"context"
	"errors"
	"fmt"

	"net"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
	"github.com/sokod/sokod/proto/sokod/v1/sokodv1connect"
)

// httpServer is the HTTP side of the daemon: SolverService over Connect,
// and the web app at /.
func (s *Server) httpServer() *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	// gRPC clients speak HTTP/2 without TLS on loopback.
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Handler:           s.HTTPHandler(),
		Protocols:         &protocols,
		ReadHeaderTimeout: handshakeTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true, ForceLevel: hclog.Debug}),
	}
}

// HTTPHandler serves SolverService with Connect under
// /sokod.v1.SolverService/ and Options.Web at /, to requests addressed to
// a loopback host only.
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	path, h := sokodv1connect.NewSolverServiceHandler(connectService{s: s, v: &service{s: s}},
		connect.WithReadMaxBytes(s.opts.MaxRequestBytes),
		connect.WithCodec(strictJSON{}),
	)
	mux.Handle(path, h)
	if s.opts.Web != nil {
		mux.Handle("/", s.opts.Web)
	}
	return loopbackOnly(s.withHTTPPrincipal(mux))
}

// loopbackOnly refuses requests whose Host, or Origin when a browser sends
// one, is not a loopback name or address. The API has no authentication
// and listens on loopback only; this check keeps a web page from another
// site from reaching it through a name that resolves to 127.0.0.1 (DNS
// rebinding) or from the visitor's browser.
func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("host %q is not a loopback address; use 127.0.0.1, [::1] or localhost", r.Host), http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, fmt.Sprintf("origin %q is not this daemon's", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether hostport (a Host header) names a loopback
// host.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackOrigin reports whether origin (scheme://host[:port]) is on a
// loopback host.
func loopbackOrigin(origin string) bool {
	_, hostport, ok := strings.Cut(origin, "://")
	return ok && loopbackHost(hostport)
}

// strictJSON is protobuf's JSON mapping, refusing unknown fields (Connect's
// default ignores them), so that a misspelt option is an error rather than
// silently the default.
type strictJSON struct{}

func (strictJSON) Name() string { return "json" }

func (strictJSON) Marshal(m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("json: %T is not a protobuf message", m)
	}
	return protojson.Marshal(pm)
}

func (strictJSON) Unmarshal(b []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("json: %T is not a protobuf message", m)
	}
	if len(b) == 0 {
		proto.Reset(pm)
		return nil
	}
	return protojson.Unmarshal(b, pm)
}

// connectService serves SolverService over Connect with the gRPC service's
// code.
type connectService struct {
	s *Server
	v *service
}

var _ sokodv1connect.SolverServiceHandler = connectService{}

func (c connectService) Solve(ctx context.Context, req *connect.Request[sokodv1.SolveRequest], stream *connect.ServerStream[sokodv1.SolveResponse]) error {
	return connectError(c.s.solve(ctx, req.Msg, stream.Send))
}

func (c connectService) Watch(ctx context.Context, req *connect.Request[sokodv1.WatchRequest], stream *connect.ServerStream[sokodv1.SolveResponse]) error {
	return connectError(c.s.watchJob(ctx, req.Msg.GetJobId(), stream.Send))
}

func (c connectService) Cancel(ctx context.Context, req *connect.Request[sokodv1.CancelRequest]) (*connect.Response[sokodv1.CancelResponse], error) {
	return unary(ctx, req, c.v.Cancel)
}

func (c connectService) Verify(ctx context.Context, req *connect.Request[sokodv1.VerifyRequest]) (*connect.Response[sokodv1.VerifyResponse], error) {
	return unary(ctx, req, c.v.Verify)
}

func (c connectService) Analyze(ctx context.Context, req *connect.Request[sokodv1.AnalyzeRequest]) (*connect.Response[sokodv1.AnalyzeResponse], error) {
	return unary(ctx, req, c.v.Analyze)
}

func (c connectService) ListComponents(ctx context.Context, req *connect.Request[sokodv1.ListComponentsRequest]) (*connect.Response[sokodv1.ListComponentsResponse], error) {
	return unary(ctx, req, c.v.ListComponents)
}

func (c connectService) ListJobs(ctx context.Context, req *connect.Request[sokodv1.ListJobsRequest]) (*connect.Response[sokodv1.ListJobsResponse], error) {
	return unary(ctx, req, c.v.ListJobs)
}

func (c connectService) GetServerInfo(ctx context.Context, req *connect.Request[sokodv1.GetServerInfoRequest]) (*connect.Response[sokodv1.GetServerInfoResponse], error) {
	return unary(ctx, req, c.v.GetServerInfo)
}

func (c connectService) ParseLevels(ctx context.Context, req *connect.Request[sokodv1.ParseLevelsRequest]) (*connect.Response[sokodv1.ParseLevelsResponse], error) {
	return unary(ctx, req, c.v.ParseLevels)
}

// unary calls a gRPC unary handler for a Connect request.
func unary[Req, Res any](ctx context.Context, req *connect.Request[Req], f func(context.Context, *Req) (*Res, error)) (*connect.Response[Res], error) {
	res, err := f(ctx, req.Msg)
	if err != nil {
		return nil, connectError(err)
	}
	return connect.NewResponse(res), nil
}

// connectError turns a gRPC status error into a Connect error with the
// same code, message and details (the codes are the same numbers).
func connectError(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	st, ok := status.FromError(err)
	if !ok {
		return connect.NewError(connect.CodeInternal, err)
	}
	ce = connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Details() {
		if m, ok := d.(proto.Message); ok {
			if detail, err := connect.NewErrorDetail(m); err == nil {
				ce.AddDetail(detail)
			}
		}
	}
	return ce
}
