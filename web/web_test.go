package web

import (
	"io"

	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sokod/sokod/internal/render"
)

func TestHandler(t *testing.T) {
	h, err := Handler(render.DefaultTheme())
	if err != nil {
		t.Fatal(err)
	}
	theme, err := render.DefaultTheme().JSON()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		method, path string
		wantStatus   int
		wantType     string
		wantBody     string // a part of it
	}{
		{"GET", "/", 200, "text/html", `<script type="module" src="js/app.js">`},
		{"GET", "/js/app.js", 200, "text/javascript", "import { call, stream"},
		{"GET", "/js/rpc.js", 200, "text/javascript", "application/connect+json"},
		{"GET", "/style.css", 200, "text/css", "--bg"},
		{"GET", "/theme.json", 200, "application/json", string(theme)},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/nothing.js", 404, "", ""},
		{"POST", "/", 405, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.wantStatus)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.wantType) {
				t.Errorf("content type %q, want %q", ct, tc.wantType)
			}
			if !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("body lacks %q", tc.wantBody)
			}
			if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
		})
	}
}

// TestNoOutsideReferences keeps every asset on the daemon: no file names
// another host (a CDN, a font service).
func TestNoOutsideReferences(t *testing.T) {
	for _, dir := range []string{"static", "static/js"} {
		entries, err := static.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			data, err := static.ReadFile(dir + "/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range []string{"http://", "https://", "//cdn", "@import url("} {
				if i := strings.Index(string(data), ref); i >= 0 {
					t.Errorf("%s/%s refers outside: %q", dir, e.Name(), string(data[i:min(len(data), i+60)]))
				}
			}
		}
	}
}
