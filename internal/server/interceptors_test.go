package server

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// rawCodec sends bytes as they are, to put on the wire what protobuf
// libraries refuse to encode; it decodes answers as protobuf.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(b []byte, v any) error {
	return proto.Unmarshal(b, v.(proto.Message))
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

// TestLatin1Request: a request whose level is not UTF-8 (proto3 strings
// must be) is read as Windows-1252, as the CLI reads files, instead of
// failing as the daemon's INTERNAL error.
func TestLatin1Request(t *testing.T) {
	ts := startServer(t, Options{})
	var req []byte
	req = protowire.AppendTag(req, 1, protowire.BytesType)
	req = protowire.AppendString(req, "; Caf\xe9\n#####\n#@$.#\n#####\n")
	req = protowire.AppendTag(req, 3, protowire.BytesType)
	req = protowire.AppendString(req, "R")
	resp := &sokodv1.VerifyResponse{}
	if err := ts.conn.Invoke(testContext(t), sokodv1.SolverService_Verify_FullMethodName, req, resp, grpc.ForceCodec(rawCodec{})); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !resp.GetValid() {
		t.Errorf("Verify: %v, want valid", resp)
	}
}

// lockedLog is a log buffer written by the server's goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCallsAreLogged: at debug level each call ends with a line naming its
// method, caller and status.
func TestCallsAreLogged(t *testing.T) {
	buf := &lockedLog{}
	ts := startServer(t, Options{Log: hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Debug})})
	if _, err := ts.client.ListJobs(testContext(t), &sokodv1.ListJobsRequest{}); err != nil {
		t.Fatal(err)
	}
	_, _ = ts.client.Cancel(testContext(t), &sokodv1.CancelRequest{JobId: "nope"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		log := buf.String()
		if strings.Contains(log, "method=/sokod.v1.SolverService/ListJobs") && strings.Contains(log, "code=OK") &&
			strings.Contains(log, "method=/sokod.v1.SolverService/Cancel") && strings.Contains(log, "code=NotFound") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log lacks the calls:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
