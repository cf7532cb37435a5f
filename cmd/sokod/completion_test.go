package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompletion asks for completions as the shell scripts of "sokod
// completion" do, through cobra's hidden __complete command.
func TestCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string // the candidates, then ":" and the directive
	}{
		{[]string{"solve", "--objective", ""}, []string{"any", "pushes", ":4"}},
		{[]string{"bench", "x.xsb", "--strategy", ""}, []string{"best-first", "greedy", "packing", "ida", ":4"}},
		{[]string{"solve", ""}, []string{"xsb", "sok", "txt", ":8"}},
		{[]string{"verify", "a.xsb", ""}, []string{":4"}},
		{[]string{"levels", "--log-format", ""}, []string{"text", "json", ":4"}},
		{[]string{"bench", "a.xsb", "--sok", ""}, []string{"sok", ":8"}},
		{[]string{"ver"}, []string{"verify\tReplay a LURD solution on a level and print its metrics, or the first illegal step.", "version\tPrint the sokod version.", ":4"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runSokod(t, "", append([]string{"__complete"}, tc.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit code %d: %s", r.code, r.stderr)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
				if !strings.HasPrefix(line, "_activeHelp_") {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("completions (-want +got):\n%s", diff)
			}
		})
	}
	r := runSokod(t, "", "completion", "bash")
	if r.code != exitOK || !strings.Contains(r.stdout, "__start_sokod") {
		t.Errorf("completion bash: exit code %d, no script:\n%.300s", r.code, r.stdout)
	}
}
