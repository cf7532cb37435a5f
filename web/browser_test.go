package web_test

// The web app in a real browser: Debian's headless Chromium, driven with
// chromedp, against a sokod daemon (the real binary, built here) that the
// test starts on a temporary socket and a loopback HTTP port. Screenshots
// of each step go to $SOKOD_SCREENSHOTS, else to a temporary directory the
// test names in its log.
//
// Without Chromium the test skips, saying so, unless SOKOD_BROWSER_TESTS is
// 1 (CI sets it): then it fails.

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sokod/sokod/internal/render"
	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
	"github.com/sokod/sokod/proto/sokod/v1/sokodv1connect"
)

// browserDeadline bounds the whole test, so a bug hangs nothing; no wait
// in it is a speed assertion.
const browserDeadline = 3 * time.Minute

// chromium finds the browser, or skips (fails when it is required).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("SOKOD_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SOKOD_BROWSER_TESTS") == "1" {
		t.Fatal("SOKOD_BROWSER_TESTS=1 but no chromium on PATH (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium; SOKOD_BROWSER_TESTS=1 makes this a failure)")
	return ""
}

// startDaemon builds sokod and serves it with HTTP on a free loopback
// port; it returns the base URL.
func startDaemon(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "sokod")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/sokod").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A socket path must be short; t.TempDir's can be too long.
	sockDir, err := os.MkdirTemp("", "sokodweb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	cmd := exec.Command(bin, "serve", "--socket", filepath.Join(sockDir, "s.sock"), "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SOKOD_SERVER_MAX_JOBS=2", "SOKOD_PLUGINS_DIRS=", "SOKOD_LOG_FORMAT=text", "SOKOD_LOG_LEVEL=info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("daemon exit: %v", err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the daemon did not stop within 30s of SIGINT")
		}
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening: http=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
			t.Log("daemon: " + sc.Text())
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("the daemon did not say where it listens")
	}
	return ""
}

// screenshots is where the test's pictures go.
func screenshots(t *testing.T) string {
	dir := os.Getenv("SOKOD_SCREENSHOTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "sokod-screenshots"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// page is one browser tab on the app.
type page struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		p.t.Fatalf("%s: %v", what, err)
	}
}

// waitFor polls a JavaScript predicate until it holds.
func (p *page) waitFor(what, predicate string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		p.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.getElementById('error').textContent + ' | ' + document.getElementById('verdict').textContent`))
		p.t.Fatalf("waiting for %s (%s): %v; page says %q", what, predicate, err, text)
	}
}

func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// shot saves a screenshot of the whole page.
func (p *page) shot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(p.shots, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Error(err)
	}
}

// pixel is the board canvas's colour at the centre of square (x, y).
func (p *page) pixel(x, y int) [4]int {
	p.t.Helper()
	t := render.DefaultTheme().Tile
	v := eval[[]int](p, fmt.Sprintf(`Array.from(document.getElementById('board').getContext('2d').getImageData(%d, %d, 1, 1).data)`,
		x*t+t/2, y*t+t/2))
	return [4]int{v[0], v[1], v[2], v[3]}
}

func TestBrowser(t *testing.T) {
	chrome := chromium(t)
	base := startDaemon(t)
	api := sokodv1connect.NewSolverServiceClient(http.DefaultClient, base)

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil { // starts the browser, without a deadline
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, browserDeadline)
	defer cancel()
	p := &page{t: t, ctx: ctx, shots: screenshots(t)}

	p.do("open the app", chromedp.Navigate(base+"/"))
	p.waitFor("the app to start", `document.body.dataset.ready === 'true'`)

	t.Run("a bad level is explained", func(t *testing.T) {
		p.t = t
		p.do("paste a bad level", chromedp.SetValue(chromedp.CSS("#level-text"), "#####\n#@X.#\n#####\n"), chromedp.Click(chromedp.CSS("#open-text")))
		p.waitFor("the error", `!document.getElementById('error').hidden && document.getElementById('error').textContent.includes('unknown character')`)
		p.shot("1-bad-level")
	})

	t.Run("open a Microban level from a collection file", func(t *testing.T) {
		p.t = t
		abs, err := filepath.Abs("testdata/levels.xsb")
		if err != nil {
			t.Fatal(err)
		}
		p.do("upload the collection", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{abs}))
		p.waitFor("the level list", `document.querySelectorAll('#level-select option').length === 3`)
		p.waitFor("level 1 drawn", `document.getElementById('level-info').textContent.includes('Microban 1') && document.getElementById('board').width === 6 * 32`)
		if e := eval[bool](p, `document.getElementById('error').hidden`); !e {
			t.Error("the error of the bad level is still shown")
		}
		p.shot("2-microban-1")
	})

	t.Run("dead squares are drawn", func(t *testing.T) {
		p.t = t
		resp, err := api.Analyze(ctx, connect.NewRequest(&sokodv1.AnalyzeRequest{Level: readFile(t, "testdata/levels.xsb"), LevelNumber: 1}))
		if err != nil {
			t.Fatal(err)
		}
		dead := resp.Msg.GetDeadSquares()
		if len(dead) == 0 {
			t.Fatal("Microban 1 has no dead squares to draw")
		}
		x, y := int(dead[0].GetX()), int(dead[0].GetY())
		before := p.pixel(x, y)
		p.do("turn dead squares on", chromedp.Click(chromedp.CSS("#ov-dead")))
		p.waitFor("the analysis", fmt.Sprintf(`Number(document.getElementById('analysis').dataset.dead) === %d`, len(dead)))
		after := p.pixel(x, y)
		// The floor is pale; a dead square's cross is red.
		if before[0]-before[1] > 40 || after[0]-after[1] < 80 {
			t.Errorf("dead square x %d, y %d: %v without the overlay, %v with it; want floor, then red", x, y, before, after)
		}
		p.shot("3-dead-squares")
		p.do("turn dead squares off", chromedp.Click(chromedp.CSS("#ov-dead")))
	})

	t.Run("play, undo and redo", func(t *testing.T) {
		p.t = t
		// Microban 1: the player at x 2, y 3 steps right, then down and
		// pushes nothing, then left pushes the box at x 3, y 4.
		p.do("play", chromedp.Focus(chromedp.CSS("#board")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight),
			chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowLeft))
		p.waitFor("four moves, one push", `document.getElementById('board').dataset.moves === '4' && document.getElementById('pushes').textContent === '1'`)
		p.do("undo twice", chromedp.KeyEvent("z"), chromedp.KeyEvent("z"))
		p.waitFor("two moves", `document.getElementById('board').dataset.moves === '2' && document.getElementById('pushes').textContent === '0'`)
		p.do("redo", chromedp.Click(chromedp.CSS("#redo")))
		p.waitFor("three moves", `document.getElementById('board').dataset.moves === '3'`)
		p.shot("4-played")
		p.do("restart", chromedp.Click(chromedp.CSS("#restart")))
		p.waitFor("the start", `document.getElementById('board').dataset.moves === '0'`)
	})

	t.Run("solve and watch the solution", func(t *testing.T) {
		p.t = t
		p.do("solve", chromedp.SetValue(chromedp.CSS("#speed"), "40"), chromedp.Click(chromedp.CSS("#solve-btn")))
		p.waitFor("a solution", `document.getElementById('verdict').dataset.status === 'STATUS_SOLVED'`)
		p.waitFor("the animation at the solved position", `(() => { const f = document.getElementById('anim-frame').dataset;
			const b = document.getElementById('board').dataset;
			return Number(f.frames) > 0 && f.frame === f.frames && b.view === 'solution' && b.solved === 'true'; })()`)
		lurd := eval[string](p, `document.getElementById('lurd').value`)
		v, err := api.Verify(ctx, connect.NewRequest(&sokodv1.VerifyRequest{Level: readFile(t, "testdata/levels.xsb"), LevelNumber: 1, Solution: lurd}))
		if err != nil || !v.Msg.GetValid() {
			t.Errorf("the solution shown, %q, does not verify: %v %v", lurd, v, err)
		}
		if got := eval[string](p, `document.getElementById('s-pushes').textContent`); got != fmt.Sprint(v.Msg.GetMetrics().GetPushes()) {
			t.Errorf("pushes shown %s, verifier says %d", got, v.Msg.GetMetrics().GetPushes())
		}
		p.shot("5-solved")
		// Step back from the end: the position is no longer solved.
		p.do("step back", chromedp.Click(chromedp.CSS("#anim-back")))
		p.waitFor("one step back", `document.getElementById('board').dataset.solved === 'false'`)
	})

	t.Run("a played deadlock is explained", func(t *testing.T) {
		p.t = t
		p.do("pick level 3", chromedp.SetValue(chromedp.CSS("#level-select"), "3"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('level-select').dispatchEvent(new Event('change'))`))
		p.waitFor("level 3", `document.getElementById('board').width === 5 * 32`)
		p.do("push right", chromedp.Focus(chromedp.CSS("#board")), chromedp.KeyEvent(kb.ArrowRight))
		p.waitFor("the deadlock", `!document.getElementById('deadlock').hidden && document.getElementById('deadlock').dataset.kind === 'DEADLOCK_KIND_DEAD_SQUARE'`)
		p.shot("6-deadlock")
		p.do("undo", chromedp.KeyEvent("z"))
		p.waitFor("no deadlock", `document.getElementById('deadlock').hidden`)
	})

	t.Run("cancel a long solve", func(t *testing.T) {
		p.t = t
		p.do("pick level 2 and a slow solve", chromedp.SetValue(chromedp.CSS("#level-select"), "2"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('level-select').dispatchEvent(new Event('change'))`),
			chromedp.SetValue(chromedp.CSS("#objective"), "OBJECTIVE_PUSHES"), chromedp.SetValue(chromedp.CSS("#heuristic"), "simple"),
			chromedp.SetValue(chromedp.CSS("#time"), "120"))
		p.waitFor("level 2", `document.getElementById('board').width === 14 * 32 && !document.getElementById('solve-btn').disabled`)
		p.do("solve", chromedp.Click(chromedp.CSS("#solve-btn")))
		p.waitFor("live progress", `Number(document.getElementById('progress').dataset.nodes) > 0`)
		p.shot("7-searching")
		p.do("cancel", chromedp.Click(chromedp.CSS("#cancel-btn")))
		p.waitFor("the cancelled verdict", `document.getElementById('verdict').dataset.status === 'STATUS_CANCELLED'`)
		p.shot("8-cancelled")
		jobs, err := api.ListJobs(ctx, connect.NewRequest(&sokodv1.ListJobsRequest{}))
		if err != nil || len(jobs.Msg.GetJobs()) != 0 {
			t.Errorf("jobs after the cancel: %v, %v", jobs, err)
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
