package server

import (
	"context"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// The gRPC interceptors: each call is logged at debug level when it ends,
// with its caller, status and duration, and a request the server could not
// decode is the client's error, not the daemon's.

// unaryLog logs a unary call and fixes its status (requestStatus).
func (s *Server) unaryLog(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	err = requestStatus(err)
	s.logCall(ctx, info.FullMethod, start, err)
	return resp, err
}

// streamLog is unaryLog for streams.
func (s *Server) streamLog(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := time.Now()
	err := requestStatus(handler(srv, ss))
	s.logCall(ss.Context(), info.FullMethod, start, err)
	return err
}

// logCall writes one call's debug line.
func (s *Server) logCall(ctx context.Context, method string, start time.Time, err error) {
	if !s.log.IsDebug() {
		return
	}
	from := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		from = p.Addr.Network() + " " + p.Addr.String()
	}
	st := status.Convert(err)
	args := []any{"method", method, "peer", from, "caller", principalOf(ctx).name, "code", st.Code().String(),
		"elapsed", time.Since(start).Round(time.Microsecond)}
	if err != nil {
		args = append(args, "error", st.Message())
	}
	s.metrics.call(method, st.Code())
	s.log.Debug("call", args...)
}

// requestStatus makes a request gRPC could not decode INVALID_ARGUMENT:
// grpc-go reports every decoding failure as INTERNAL, which clients take
// for the daemon's fault, though it is the request's (a level text that is
// not UTF-8, which protobuf strings must be, say).
func requestStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Internal {
		return err
	}
	cause, ok := strings.CutPrefix(st.Message(), decodeFailure)
	if !ok {
		return err
	}
	return status.Error(codes.InvalidArgument, "request: "+cause+" (the API's strings are UTF-8)")
}

// decodeFailure starts grpc-go's message for a request it could not
// decode (rpc_util.go).
const decodeFailure = "grpc: failed to unmarshal the received message: "
