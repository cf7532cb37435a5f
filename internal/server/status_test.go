package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/supervisor"
	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// failingComponents fail to resolve the heuristic "flaky" with err.
type failingComponents struct {
	Components
	err error
}

func (f failingComponents) Heuristic(ctx context.Context, name string) (*registry.Heuristic, error) {
	if name == "flaky" {
		return nil, f.err
	}
	return f.Components.Heuristic(ctx, name)
}

// TestPluginErrorStatuses: a plugin that restarts is UNAVAILABLE (it was
// INVALID_ARGUMENT, and clients gave up on a passing failure), one taken
// out of use FAILED_PRECONDITION; the message names the plugin and what
// happened, never the binary's path or checksum.
func TestPluginErrorStatuses(t *testing.T) {
	checksum := &supervisor.Error{Plugin: "flaky", Op: "start", Kind: supervisor.ErrChecksum,
		Err: errors.New("/opt/secret/sokod-plugin-flaky has sha256 0123abcd, pinned 4567ef")}
	crash := &supervisor.Error{Plugin: "flaky", Op: "prepare heuristic", Kind: supervisor.ErrCrashed,
		Err: errors.New("transport: dial unix /tmp/plugin0042: connection refused")}
	tests := []struct {
		name string
		err  error
		code codes.Code
	}{
		{"restarting", &supervisor.Error{Plugin: "flaky", Op: "start", Kind: supervisor.ErrUnavailable, Err: crash}, codes.Unavailable},
		{"taken out of use", &supervisor.Error{Plugin: "flaky", Op: "start", Kind: supervisor.ErrDisabled, Err: checksum}, codes.FailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, Options{Components: failingComponents{Components: testComponents(), err: tt.err}})
			ctx := testContext(t)
			stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: "#####\n#@$.#\n#####\n",
				Options: &sokodv1.SolveOptions{Heuristic: "flaky"}})
			if err == nil {
				_, err = stream.Recv()
			}
			st := status.Convert(err)
			if st.Code() != tt.code {
				t.Errorf("code %v (%s), want %v", st.Code(), st.Message(), tt.code)
			}
			for _, secret := range []string{"/opt/secret", "0123abcd", "/tmp/plugin0042"} {
				if strings.Contains(st.Message(), secret) {
					t.Errorf("message %q shows %q", st.Message(), secret)
				}
			}
			if !strings.HasPrefix(st.Message(), "heuristic: plugin flaky") {
				t.Errorf("message %q, want it to name the option and the plugin", st.Message())
			}
		})
	}
}
