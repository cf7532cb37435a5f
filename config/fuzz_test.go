package config_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/config"
)

// FuzzLoadFile checks that no configuration file makes Load panic or
// hang, and that one it accepts is valid and reads back, written as
// `sokod config show --json` writes it, to the same configuration.
func FuzzLoadFile(f *testing.F) {
	for _, s := range []struct {
		ext  uint8
		text string
	}{
		{0, "limits:\n  time: 30s\n  memory: 2GiB\nserver:\n  max_jobs: 2\n"},
		{0, "listen.tcp: 127.0.0.1:7700\nplugins:\n  sha256: [simple=00]\n"},
		{1, "[limits]\ntime = \"1m\"\n[fallback]\nplanners = [\"fess\"]\n"},
		{2, `{"log": {"level": "debug"}, "server": {"memory_cap": "4GiB", "max_request_bytes": "1MiB"}}`},
		{0, "limits: [1, 2]\n"},
		{2, `{"limits.memory": 1e30}`},
	} {
		f.Add(s.ext, s.text)
	}
	exts := []string{".yaml", ".toml", ".json"}
	f.Fuzz(func(t *testing.T, ext uint8, text string) {
		path := filepath.Join(t.TempDir(), "sokod"+exts[int(ext)%len(exts)])
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		noEnv := func(string) (string, bool) { return "", false }
		cfg, err := config.Load(config.LoadOptions{File: path, Env: noEnv})
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Load accepted a configuration Validate refuses: %v", err)
		}
		shown, err := json.Marshal(cfg.Map())
		if err != nil {
			t.Fatal(err)
		}
		back := filepath.Join(t.TempDir(), "shown.json")
		if err := os.WriteFile(back, shown, 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := config.Load(config.LoadOptions{File: back, Env: noEnv})
		if err != nil {
			t.Fatalf("config show's output %s does not load: %v", shown, err)
		}
		if diff := cmp.Diff(cfg, again); diff != "" {
			t.Fatalf("config show's output loads differently (-file +shown):\n%s", diff)
		}
	})
}
