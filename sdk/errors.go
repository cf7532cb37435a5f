package sdk

import "errors"

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
