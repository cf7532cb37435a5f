package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

const example = "../../testdata/example.xsb"

type result struct {
	code           int
	stdout, stderr string
}

func runSokod(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runSokodEnv(t, nil, stdin, args...)
}

// runSokodEnv is runSokod with the SOKOD_* variables of env set.
func runSokodEnv(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	// Keep the caller's environment out of the configuration.
	for _, k := range []string{"SOKOD_CONFIG", "SOKOD_LOG_LEVEL", "SOKOD_LOG_FORMAT", "SOKOD_LIMITS_TIME"} {
		t.Setenv(k, env[k])
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, nil)
	return result{code, out.String(), errOut.String()}
}

func TestExitCodesAndText(t *testing.T) {
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout string // exact, when set
		wantStderr string // a part, when set
	}{
		{
			name: "verify valid", args: []string{"verify", example, "dlUdlluurDldR"}, wantCode: exitOK,
			wantStdout: "valid: the solution solves level 1 (sokod example: two boxes, two goals)\n" +
				"moves 13  pushes 3  box lines 3  box changes 2  pushing sessions 3  player lines 11\n",
		},
		{
			name: "verify solution from a file on stdin", stdin: "dlU dll\nuurD ldR\n", args: []string{"verify", example, "--solution-file", "-"}, wantCode: exitOK,
		},
		{
			name: "verify legal but unsolved", args: []string{"verify", example, "dlU"}, wantCode: exitInvalid,
			wantStdout: "invalid: level 1 (sokod example: two boxes, two goals): every step is legal but the level is not solved at the end\n" +
				"moves 3  pushes 1  box lines 1  box changes 1  pushing sessions 1  player lines 3\n",
		},
		{
			name: "verify illegal step", args: []string{"verify", example, "l"}, wantCode: exitInvalid,
			wantStdout: "invalid: level 1 (sokod example: two boxes, two goals): step 1 'l' left from column 5, row 3: this step pushes a box but is written as a move (lower case)\n" +
				"moves 0  pushes 0  box lines 0  box changes 0  pushing sessions 0  player lines 0\n",
		},
		{name: "verify malformed solution", args: []string{"verify", example, "dlx"}, wantCode: exitBadInput, wantStderr: "byte 3"},
		{name: "verify no such level", args: []string{"verify", example, "--level", "2", "r"}, wantCode: exitBadInput, wantStderr: "has 1 level(s); there is no level 2"},
		{name: "verify missing file", args: []string{"verify", "testdata/nope.xsb", "r"}, wantCode: exitBadInput, wantStderr: "no such file"},
		{name: "verify a file without stored solutions", args: []string{"verify", example}, wantCode: exitBadInput, wantStderr: "stores no solution to check"},
		{name: "verify too many arguments", args: []string{"verify", example, "r", "r"}, wantCode: exitUsage, wantStderr: "Usage: sokod verify"},
		{name: "levels of an invalid file", args: []string{"levels", "testdata/bad.xsb"}, wantCode: exitBadInput, wantStderr: "level 2: line 8, column 4: unknown character 'X'"},
		{
			name: "levels text", args: []string{"levels", example}, wantCode: exitOK,
			wantStdout: "level  width  height  boxes  title\n    1      7       5      2  sokod example: two boxes, two goals\n",
		},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: exitUsage, wantStderr: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"levels", "--frob", example}, wantCode: exitUsage, wantStderr: "unknown flag: --frob"},
		{name: "bad config value from a flag", args: []string{"config", "show", "--log-level", "loud"}, wantCode: exitUsage, wantStderr: "log.level"},
		{name: "help for a command", args: []string{"help", "verify"}, wantCode: exitOK},
		{name: "no command", args: nil, wantCode: exitUsage},
		{name: "version", args: []string{"version"}, wantCode: exitOK, wantStdout: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSokod(t, tc.stdin, tc.args...)
			if r.code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if tc.wantStdout != "" {
				if diff := cmp.Diff(tc.wantStdout, r.stdout); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tc.wantStderr)
			}
		})
	}
}

func TestVerifyJSON(t *testing.T) {
	r := runSokod(t, "", "verify", example, "dlUdR", "--json")
	if r.code != exitInvalid {
		t.Fatalf("exit code %d, want %d (stderr %s)", r.code, exitInvalid, r.stderr)
	}
	var got verifyOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	want := verifyOutput{
		File: example, Level: 1, Title: "sokod example: two boxes, two goals",
		Metrics: sokoban.Metrics{Moves: 4, Pushes: 1, BoxLines: 1, BoxChanges: 1, PushingSessions: 1, PlayerLines: 4},
		Error: &stepErrorJSON{Step: 5, Move: "R", Kind: "move written as push",
			Message: "step 5 'R' right from column 4, row 4: this step pushes no box but is written as a push (upper case)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

func TestLevelsJSON(t *testing.T) {
	r := runSokod(t, "#####\n#@$.#\n#####\n\n; done\n####\n#@*#\n####\n", "levels", "-", "--json")
	if r.code != exitOK {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
	var got levelsOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	want := levelsOutput{File: "-", Levels: []levelInfo{
		{Index: 1, Width: 5, Height: 3, Boxes: 1},
		{Index: 2, Title: "done", Width: 4, Height: 3, Boxes: 1, Solved: true},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

func TestConfigShowPrecedence(t *testing.T) {
	tests := []struct {
		name string
		env  string // SOKOD_LIMITS_TIME
		args []string
		want string
	}{
		{"default", "", nil, "limits.time = 1m0s"},
		{"environment", "5s", nil, "limits.time = 5s"},
		{"flag beats environment", "5s", []string{"--time", "7s"}, "limits.time = 7s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			t.Setenv("SOKOD_CONFIG", "")
			t.Setenv("SOKOD_LIMITS_TIME", tc.env)
			code := run(context.Background(), append([]string{"config", "show"}, tc.args...), strings.NewReader(""), &out, &errOut, nil)
			if code != exitOK {
				t.Fatalf("exit code %d: %s", code, errOut.String())
			}
			if !strings.Contains(out.String(), tc.want+"\n") {
				t.Errorf("config show does not say %q:\n%s", tc.want, out.String())
			}
		})
	}
}

// TestReadmeFirstCommand keeps the README's first command true: solve the
// shipped example, then check the printed LURD with verify.
func TestReadmeFirstCommand(t *testing.T) {
	r := runSokod(t, "", "solve", example)
	if r.code != exitOK {
		t.Fatalf("sokod solve %s: exit code %d\nstdout: %s\nstderr: %s", example, r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 2 {
		t.Fatalf("solve printed no solution line:\n%s", r.stdout)
	}
	v := runSokod(t, "", "verify", example, lines[1])
	if v.code != exitOK {
		t.Errorf("the LURD that solve printed, %q, does not verify: %s", lines[1], v.stdout)
	}
}

// TestHelp checks the help of the cobra command tree: where it goes, its
// exit code, and that a bad configuration does not stop it.
func TestHelp(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		logLevel string // SOKOD_LOG_LEVEL
		wantCode int
		// wantStdout are parts of stdout, in this order.
		wantStdout []string
	}{
		{name: "help verify", args: []string{"help", "verify"}, wantStdout: []string{
			"Usage: sokod verify FILE [--level N] [SOLUTION|--solution-file F] [--json]\n", "Flags:\n", "--level", "--solution-file", "--json",
			"Configuration flags:\n", "--config", "--log-level", "--time", "--memory"}},
		{name: "verify --help", args: []string{"verify", "--help"}, wantStdout: []string{"Usage: sokod verify"}},
		{name: "help with a bad configuration", args: []string{"help", "solve"}, logLevel: "loud", wantStdout: []string{"Usage: sokod solve FILE"}},
		{name: "help", args: []string{"help"}, wantStdout: []string{"Commands:\n", "  bench ", "  verify ", "Exit codes:"}},
		{name: "no command", args: nil, wantCode: exitUsage, wantStdout: []string{"Usage: sokod COMMAND"}},
		{name: "config without show", args: []string{"config"}, wantCode: exitUsage},
		{name: "bad configuration stops a command", args: []string{"version"}, logLevel: "loud", wantCode: exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSokodEnv(t, map[string]string{"SOKOD_LOG_LEVEL": tc.logLevel}, "", tc.args...)
			if r.code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			rest := r.stdout
			for _, part := range tc.wantStdout {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Fatalf("stdout lacks %q after the parts before it:\n%s", part, r.stdout)
				}
				rest = rest[i+len(part):]
			}
		})
	}
}
