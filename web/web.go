// Package web is the browser app that `sokod serve` serves at / on its
// HTTP listener (listen.http): open a level (pasted, or a collection file),
// play it, solve it on the daemon with live progress and cancel, watch the
// solution animated, and see the daemon's analysis drawn over the board.
//
// The app is plain ES modules, HTML and CSS under static/, with no build
// step and nothing fetched from elsewhere: every file is embedded in the
// binary. It talks to the daemon's SolverService with the Connect protocol
// (JSON over fetch, see static/js/rpc.js) on the same origin, and draws
// with the render package's theme, served as /theme.json, so that its
// board looks like `sokod render`'s pictures.
package web

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/sokod/sokod/internal/render"
)

//go:embed static
var static embed.FS

// contentSecurityPolicy lets the page load and call only its own origin,
// and run no inline script.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

// Handler serves the app's files, and theme as /theme.json.
func Handler(theme render.Theme) (http.Handler, error) {
	themeJSON, err := theme.JSON()
	if err != nil {
		return nil, fmt.Errorf("web: theme: %w", err)
	}
	root, err := fs.Sub(static, "static")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	files := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The files change with the binary; a reload gets the new ones.
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/theme.json" {
			h.Set("Content-Type", "application/json")
			_, _ = w.Write(themeJSON)
			return
		}
		files.ServeHTTP(w, r)
	}), nil
}
