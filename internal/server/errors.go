package server

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// errorDomain is the ErrorInfo domain of the daemon's errors.
const errorDomain = "sokod"

// The ErrorInfo reasons of the daemon's errors: stable tokens a client
// tests, listed in the proto's header.
const (
	reasonInvalidOption = "INVALID_OPTION"
	reasonQueueFull     = "QUEUE_FULL"
	reasonShuttingDown  = "SHUTTING_DOWN"
	reasonNoSuchJob     = "NO_SUCH_JOB"
	// reasonPluginUnavailable: a plugin the request names is restarting,
	// starting or hung (UNAVAILABLE); reasonPluginDisabled: it is taken
	// out of use (FAILED_PRECONDITION). Metadata "option" and "plugin".
	reasonPluginUnavailable = "PLUGIN_UNAVAILABLE"
	reasonPluginDisabled    = "PLUGIN_DISABLED"
	// reasonNeedToken: a call on TCP without the daemon's token
	// (UNAUTHENTICATED); reasonNotYourJob: Cancel or Watch of a job
	// another client started (PERMISSION_DENIED).
	reasonNeedToken  = "TOKEN_REQUIRED"
	reasonNotYourJob = "NOT_YOUR_JOB"
	// reasonMemoryBudget: an analysis whose tables exceed limits.memory
	// (RESOURCE_EXHAUSTED).
	reasonMemoryBudget = "MEMORY_BUDGET"
)

// rpcError is a status error with code c and message msg, carrying a
// google.rpc.ErrorInfo with reason and metadata.
func rpcError(c codes.Code, reason string, metadata map[string]string, msg string) error {
	st := status.New(c, msg)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: errorDomain, Metadata: metadata}); err == nil {
		st = d
	}
	return st.Err()
}
