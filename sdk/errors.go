package sdk

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Errors the adapters wrap, so that the host can tell a broken plugin from a
// failing one with errors.Is.
var (
	// ErrBadAnswer marks an answer that breaks the protocol: tables of the
	// wrong size, a square that does not exist, one estimate too few. The
	// host treats the plugin as broken.
	ErrBadAnswer = errors.New("answer breaks the plugin protocol")
	// ErrBadRequest marks a request that breaks the protocol. A plugin
	// answers it with codes.InvalidArgument.
	ErrBadRequest = errors.New("request breaks the plugin protocol")
	// ErrUnknownSession marks an Estimate or Check for a session the plugin
	// does not hold, as after a plugin restart. A plugin answers it with
	// codes.NotFound.
	ErrUnknownSession = errors.New("unknown session")
	// ErrUnsupported marks a request the other side understands but does
	// not implement, such as a kind of sub-goal. It travels as
	// codes.Unimplemented.
	ErrUnsupported = errors.New("not supported")
)

// toStatus turns a component's error into a gRPC status for the wire,
// keeping the categories the other side acts on.
func toStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Unknown
	switch {
	case errors.Is(err, ErrBadRequest):
		code = codes.InvalidArgument
	case errors.Is(err, ErrUnknownSession):
		code = codes.NotFound
	case errors.Is(err, ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, context.Canceled) || ctx.Err() == context.Canceled:
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
		code = codes.DeadlineExceeded
	}
	return status.Error(code, err.Error())
}

// fromStatus turns a gRPC error from the other side back into an error that
// wraps the SDK's sentinels and the context's errors where they apply, and
// keeps the status for status.FromError.
func fromStatus(op string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("%s: %w", op, err)
	}
	var kind error
	switch st.Code() {
	case codes.InvalidArgument:
		kind = ErrBadRequest
	case codes.NotFound:
		kind = ErrUnknownSession
	case codes.Unimplemented:
		kind = ErrUnsupported
	case codes.Canceled:
		kind = context.Canceled
	case codes.DeadlineExceeded:
		kind = context.DeadlineExceeded
	}
	if kind == nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, kind, err)
}
