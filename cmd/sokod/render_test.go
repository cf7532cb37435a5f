package main

import (
	"bytes"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		check    func(t *testing.T, data []byte) // the picture written, when set
	}{
		{"png picture", []string{"--out", "level.png"}, exitOK, func(t *testing.T, data []byte) {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil || img.Bounds().Dx() != 7*32 || img.Bounds().Dy() != 5*32 {
				t.Errorf("png: %v, %v", img.Bounds(), err)
			}
		}},
		{"svg picture at another tile size", []string{"--out", "level.svg", "--tile", "16"}, exitOK, func(t *testing.T, data []byte) {
			if !bytes.HasPrefix(data, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="112" height="80"`)) {
				t.Errorf("svg starts %q", data[:min(len(data), 80)])
			}
		}},
		{"gif of a solution", []string{"--out", "solution.gif", "--solution", "dlUdlluurDldR"}, exitOK, func(t *testing.T, data []byte) {
			g, err := gif.DecodeAll(bytes.NewReader(data))
			if err != nil || len(g.Image) != 14 {
				t.Errorf("gif: %v frames, %v", len(g.Image), err)
			}
		}},
		{"svg animation of a solution found by --solve", []string{"--out", "solved.svg", "--solve"}, exitOK, func(t *testing.T, data []byte) {
			if !bytes.Contains(data, []byte("<animateTransform")) {
				t.Error("no animation in the svg")
			}
		}},
		{"an illegal solution", []string{"--out", "x.gif", "--solution", "rrrr"}, exitInvalid, nil},
		{"a solution that does not solve", []string{"--out", "x.gif", "--solution", "dlU"}, exitInvalid, nil},
		{"malformed solution text", []string{"--out", "x.gif", "--solution", "dl?"}, exitBadInput, nil},
		{"png of a solution", []string{"--out", "x.png", "--solution", "dlUdlluurDldR"}, exitUsage, nil},
		{"gif of no solution", []string{"--out", "x.gif"}, exitUsage, nil},
		{"two solutions", []string{"--out", "x.gif", "--solution", "d", "--solve"}, exitUsage, nil},
		{"unknown format", []string{"--out", "x.bmp"}, exitUsage, nil},
		{"no such level", []string{"--out", "x.png", "--level", "2"}, exitBadInput, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"render", example}, tc.args...)
			for i, a := range args {
				if i > 0 && args[i-1] == "--out" {
					args[i] = filepath.Join(dir, a)
				}
			}
			r := runSokod(t, "", args...)
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, tc.wantCode, r.stderr)
			}
			if tc.check == nil {
				return
			}
			out := args[len(args)-1]
			for i, a := range args {
				if a == "--out" {
					out = args[i+1]
				}
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.stdout, out+": ") {
				t.Errorf("stdout %q, want a line about %s", r.stdout, out)
			}
			tc.check(t, data)
		})
	}
}

func TestRenderToStdout(t *testing.T) {
	r := runSokod(t, "", "render", example, "--format", "svg")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "<svg ") || !strings.HasSuffix(r.stdout, "</svg>\n") {
		t.Errorf("exit %d, stdout %.60q..., stderr %s", r.code, r.stdout, r.stderr)
	}
}
