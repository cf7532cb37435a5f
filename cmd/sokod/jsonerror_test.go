package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSolveJSONFailures(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xsb")
	if err := os.WriteFile(bad, []byte("#####\n#@X.#\n#####\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     errorOutput
	}{
		{"invalid level", []string{bad}, exitBadInput, errorOutput{File: bad, Level: 1, Status: "error",
			Error: errorDetail{Kind: "unknown_character", Line: 2, Column: 3}}},
		{"unreadable file", []string{filepath.Join(dir, "none.xsb")}, exitBadInput, errorOutput{File: filepath.Join(dir, "none.xsb"), Level: 1,
			Status: "error", Error: errorDetail{Kind: "unreadable"}}},
		{"no such level", []string{example, "--level", "4"}, exitBadInput, errorOutput{File: example, Level: 4, Status: "error",
			Error: errorDetail{Kind: "no_such_level"}}},
		{"bad option", []string{example, "--objective", "fast"}, exitUsage, errorOutput{File: example, Level: 1, Status: "error",
			Error: errorDetail{Kind: "usage"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSokod(t, "", append(append([]string{"solve"}, tc.args...), "--json")...)
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, tc.wantCode, r.stderr)
			}
			var got errorOutput
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
			}
			if got.Error.Message == "" || !strings.Contains(r.stderr, got.Error.Message) {
				t.Errorf("message %q, stderr %q: want the same message in both", got.Error.Message, r.stderr)
			}
			got.Error.Message = ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusJSONUnreachable(t *testing.T) {
	addr := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	r := runSokod(t, "", "status", "--remote", addr, "--json")
	var got statusFailure
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	if r.code != exitFailure || got.Address != addr || got.Error.Kind != "unreachable" || got.Error.Message == "" {
		t.Errorf("exit %d, JSON %+v; want exit 1 with the address and the error", r.code, got)
	}
}

func TestServeRefusesAPublicHTTPAddress(t *testing.T) {
	r := runSokod(t, "", "serve", "--http", "0.0.0.0:7701", "--socket", filepath.Join(t.TempDir(), "s.sock"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "listen.http") {
		t.Errorf("exit %d, stderr %q: want a usage error naming listen.http", r.code, r.stderr)
	}
}
