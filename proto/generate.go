// Package proto holds sokod's protocol definitions (.proto files) and the Go
// code generated from them; it has no code of its own.
//
// Regenerate every generated file, and lint the definitions, with the one
// command
//
//	go generate ./proto/...
//
// from the repository root. buf and the protoc plugins run through
// `go tool` from the separate tools module (tools/go.mod), which pins their
// versions; nothing needs installing. The generated code is committed, and
// .ci/run fails when it differs from what this command produces.
//
// The plugin protocol also ships as a binary FileDescriptorSet
// (sokod/plugin/v1/plugin.binpb), which plugins in languages without a
// protoc generator at hand load at run time. The daemon API does too
// (sokod/v1/solver.binpb), for clients that cannot use server reflection
// (grpcurl -protoset).
package proto

//go:generate go tool -modfile=../tools/go.mod buf lint
//go:generate go tool -modfile=../tools/go.mod buf generate
//go:generate go tool -modfile=../tools/go.mod buf build --output sokod/plugin/v1/plugin.binpb --path sokod/plugin/v1/plugin.proto
//go:generate go tool -modfile=../tools/go.mod buf build --output sokod/v1/solver.binpb --path sokod/v1/solver.proto
