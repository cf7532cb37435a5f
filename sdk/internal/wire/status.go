package wire

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sokod/sokod/sdk"
)

// ToStatus turns a component's error into a gRPC status for the wire,
// keeping the categories the other side acts on.
func ToStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Unknown
	switch {
	case errors.Is(err, sdk.ErrBadRequest):
		code = codes.InvalidArgument
	case errors.Is(err, sdk.ErrUnknownSession):
		code = codes.NotFound
	case errors.Is(err, sdk.ErrUnsupported):
		code = codes.Unimplemented
	case errors.Is(err, context.Canceled) || ctx.Err() == context.Canceled:
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
		code = codes.DeadlineExceeded
	}
	return status.Error(code, err.Error())
}

// FromStatus turns a gRPC error from the other side back into an error that
// wraps the SDK's sentinels and the context's errors where they apply, and
// keeps the status for status.FromError.
func FromStatus(op string, err error) error {
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
		kind = sdk.ErrBadRequest
	case codes.NotFound:
		kind = sdk.ErrUnknownSession
	case codes.Unimplemented:
		kind = sdk.ErrUnsupported
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
