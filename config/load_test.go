package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// envOf returns a LoadOptions.Env that looks keys up in m only.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// parsedFlags returns a flag set with RegisterFlags' flags, parsed from args.
func parsedFlags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("sokod", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return fs
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefault(t *testing.T) {
	want := &Config{
		Listen:   Listen{Unix: "", TCP: "", SocketGroup: ""},
		Plugins:  Plugins{Dirs: nil, StartTimeout: 10 * time.Second},
		Limits:   Limits{Time: time.Minute, Memory: GiB, Nodes: 0},
		Fallback: Fallback{Planners: []string{"fess", "relocation"}, PlannerShare: 80},
		Server:   Server{MaxJobs: 0, Queue: 16, MemoryCap: 0, ShutdownTimeout: 10 * time.Second, MaxRequestBytes: 4 * MiB},
		Log:      Log{Level: "info", Format: "text"},
		Store:    Store{Path: ""},
		Batch:    Batch{NATS: "nats://127.0.0.1:4222", AckWait: 30 * time.Second, MaxDeliveries: 5, Replicas: 1},
	}
	if diff := cmp.Diff(want, Default()); diff != "" {
		t.Errorf("Default() mismatch (-want +got):\n%s", diff)
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
	got, err := Load(LoadOptions{Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load with nothing set mismatch (-want +got):\n%s", diff)
	}
}

const yamlFile = `
listen:
  unix: /run/sokod/sokod.sock
  tcp: 127.0.0.1:7700
  socket_group: games
plugins:
  dirs: [/usr/lib/sokod, /opt/sokod/plugins]
  start_timeout: 5s
limits:
  time: 2m
  memory: 2GiB
  nodes: 1000000
server:
  max_jobs: 4
  queue: 8
  memory_cap: 8GiB
  shutdown_timeout: 30s
log:
  level: debug
  format: json
store:
  path: /var/lib/sokod/store.db
batch:
  nats: nats://nats.example:4222
  ack_wait: 1m
  max_deliveries: 3
  replicas: 3
`

// fromYAML is Default overridden by yamlFile.
func fromYAML() *Config {
	return &Config{
		Listen:   Listen{Unix: "/run/sokod/sokod.sock", TCP: "127.0.0.1:7700", SocketGroup: "games"},
		Plugins:  Plugins{Dirs: []string{"/usr/lib/sokod", "/opt/sokod/plugins"}, StartTimeout: 5 * time.Second},
		Limits:   Limits{Time: 2 * time.Minute, Memory: 2 * GiB, Nodes: 1000000},
		Fallback: Fallback{Planners: []string{"fess", "relocation"}, PlannerShare: 80},
		Server:   Server{MaxJobs: 4, Queue: 8, MemoryCap: 8 * GiB, ShutdownTimeout: 30 * time.Second, MaxRequestBytes: 4 * MiB},
		Log:      Log{Level: "debug", Format: "json"},
		Store:    Store{Path: "/var/lib/sokod/store.db"},
		Batch:    Batch{NATS: "nats://nats.example:4222", AckWait: time.Minute, MaxDeliveries: 3, Replicas: 3},
	}
}

func TestLoad(t *testing.T) {
	// with returns Default() changed by f.
	with := func(f func(c *Config)) *Config {
		c := Default()
		f(c)
		return c
	}
	tests := []struct {
		name  string
		files map[string]string // written to a temp dir
		file  string            // LoadOptions.File, relative to the temp dir
		env   map[string]string // "$DIR" is replaced by the temp dir
		args  []string          // flags; "$DIR" is replaced by the temp dir
		want  *Config
	}{
		{
			name:  "yaml file overrides every default",
			files: map[string]string{"sokod.yaml": yamlFile},
			file:  "sokod.yaml",
			want:  fromYAML(),
		},
		{
			name:  "yml extension",
			files: map[string]string{"sokod.yml": "limits:\n  time: 90s\n"},
			file:  "sokod.yml",
			want:  with(func(c *Config) { c.Limits.Time = 90 * time.Second }),
		},
		{
			name: "toml file",
			files: map[string]string{"sokod.toml": `
[limits]
time = "30s"
memory = "512MiB"
nodes = 5000
[server]
queue = 0
[plugins]
dirs = ["/a", "/b"]
`},
			file: "sokod.toml",
			want: with(func(c *Config) {
				c.Limits = Limits{Time: 30 * time.Second, Memory: 512 * MiB, Nodes: 5000}
				c.Server.Queue = 0
				c.Plugins.Dirs = []string{"/a", "/b"}
			}),
		},
		{
			name: "json file with nested and numeric values",
			files: map[string]string{"sokod.json": `{
				"limits": {"memory": 33554432, "nodes": 12},
				"server": {"max_jobs": 2},
				"log": {"level": "warn"}
			}`},
			file: "sokod.json",
			want: with(func(c *Config) {
				c.Limits.Memory = 32 * MiB
				c.Limits.Nodes = 12
				c.Server.MaxJobs = 2
				c.Log.Level = "warn"
			}),
		},
		{
			name:  "flat dotted keys in a file",
			files: map[string]string{"sokod.json": `{"limits.time": "45s", "listen.tcp": "[::1]:0"}`},
			file:  "sokod.json",
			want: with(func(c *Config) {
				c.Limits.Time = 45 * time.Second
				c.Listen.TCP = "[::1]:0"
			}),
		},
		{
			name:  "upper-case keys, numeric group, YAML off and null",
			files: map[string]string{"sokod.yaml": "LOG:\n  Level: off\nlisten:\n  socket_group: 1000\nlimits:\n  time:\n"},
			file:  "sokod.yaml",
			want: with(func(c *Config) {
				c.Log.Level = "off"
				c.Listen.SocketGroup = "1000"
			}),
		},
		{
			name:  "env overrides file",
			files: map[string]string{"sokod.yaml": yamlFile},
			file:  "sokod.yaml",
			env: map[string]string{
				"SOKOD_LIMITS_TIME":   "3m",
				"SOKOD_LOG_LEVEL":     "error",
				"SOKOD_PLUGINS_DIRS":  "/env/one",
				"SOKOD_SERVER_QUEUE":  "3",
				"SOKOD_LIMITS_MEMORY": "64MiB",
			},
			want: func() *Config {
				c := fromYAML()
				c.Limits.Time = 3 * time.Minute
				c.Limits.Memory = 64 * MiB
				c.Log.Level = "error"
				c.Plugins.Dirs = []string{"/env/one"}
				c.Server.Queue = 3
				return c
			}(),
		},
		{
			name:  "flag overrides env and file",
			files: map[string]string{"sokod.yaml": yamlFile},
			file:  "sokod.yaml",
			env: map[string]string{
				"SOKOD_LIMITS_TIME":   "3m",
				"SOKOD_LIMITS_MEMORY": "64MiB",
				"SOKOD_LIMITS_NODES":  "7",
				"SOKOD_LOG_LEVEL":     "error",
				"SOKOD_LOG_FORMAT":    "text",
				"SOKOD_PLUGINS_DIRS":  "/env/one,/env/two",
			},
			args: []string{
				"--time=4m", "--memory", "128MiB", "--nodes=9", "--log-level", "trace",
				"--log-format=json", "--plugin-dir", "/flag/a,b", "--plugin-dir=/flag/c", "--store=",
			},
			want: func() *Config {
				c := fromYAML()
				c.Limits = Limits{Time: 4 * time.Minute, Memory: 128 * MiB, Nodes: 9}
				c.Log = Log{Level: "trace", Format: "json"}
				// --plugin-dir takes each value whole: a comma may be part of a path.
				c.Plugins.Dirs = []string{"/flag/a,b", "/flag/c"}
				// --store '' turns off the file's store.
				c.Store.Path = ""
				return c
			}(),
		},
		{
			name: "flags the user did not set override nothing",
			env:  map[string]string{"SOKOD_LIMITS_TIME": "3m", "SOKOD_LOG_LEVEL": "warn"},
			args: []string{"--nodes=5"},
			want: with(func(c *Config) {
				c.Limits.Time = 3 * time.Minute
				c.Limits.Nodes = 5
				c.Log.Level = "warn"
			}),
		},
		{
			name: "every key set only in the environment",
			env: map[string]string{
				"SOKOD_LISTEN_UNIX":             "/tmp/s.sock",
				"SOKOD_LISTEN_TCP":              "localhost:7700",
				"SOKOD_LISTEN_SOCKET_GROUP":     "wheel",
				"SOKOD_PLUGINS_DIRS":            "/p/one, /p/two" + string(os.PathListSeparator) + "/p/three,",
				"SOKOD_PLUGINS_START_TIMEOUT":   "1m30s",
				"SOKOD_LIMITS_TIME":             "10s",
				"SOKOD_LIMITS_MEMORY":           "1.5GiB",
				"SOKOD_LIMITS_NODES":            "123456789",
				"SOKOD_SERVER_MAX_JOBS":         "3",
				"SOKOD_SERVER_QUEUE":            "0",
				"SOKOD_FALLBACK_PLANNERS":       "packing,fess",
				"SOKOD_FALLBACK_SEARCH_SHARE":   "30",
				"SOKOD_FALLBACK_PLANNER_SHARE":  "40",
				"SOKOD_FALLBACK_PORTFOLIO":      "true",
				"SOKOD_SERVER_MEMORY_CAP":       "6GB",
				"SOKOD_SERVER_SHUTDOWN_TIMEOUT": "3s",
				"SOKOD_LOG_LEVEL":               "debug",
				"SOKOD_LOG_FORMAT":              "json",
				"SOKOD_STORE_PATH":              "/tmp/store.db",
				"SOKOD_BATCH_NATS":              "nats://a:4222,nats://b:4222",
				"SOKOD_BATCH_ACK_WAIT":          "10s",
				"SOKOD_BATCH_MAX_DELIVERIES":    "2",
				"SOKOD_BATCH_REPLICAS":          "5",
				"SOKOD_UNKNOWN_KEYS_ARE_UNSEEN": "x",
			},
			want: &Config{
				Listen:   Listen{Unix: "/tmp/s.sock", TCP: "localhost:7700", SocketGroup: "wheel"},
				Plugins:  Plugins{Dirs: []string{"/p/one", "/p/two", "/p/three"}, StartTimeout: 90 * time.Second},
				Limits:   Limits{Time: 10 * time.Second, Memory: 1536 * MiB, Nodes: 123456789},
				Fallback: Fallback{Planners: []string{"packing", "fess"}, SearchShare: 30, PlannerShare: 40, Portfolio: true},
				Server:   Server{MaxJobs: 3, Queue: 0, MemoryCap: 6e9, ShutdownTimeout: 3 * time.Second, MaxRequestBytes: 4 * MiB},
				Log:      Log{Level: "debug", Format: "json"},
				Store:    Store{Path: "/tmp/store.db"},
				Batch:    Batch{NATS: "nats://a:4222,nats://b:4222", AckWait: 10 * time.Second, MaxDeliveries: 2, Replicas: 5},
			},
		},
		{
			name:  "empty env value counts as unset",
			files: map[string]string{"sokod.yaml": "log:\n  level: warn\n"},
			file:  "sokod.yaml",
			env:   map[string]string{"SOKOD_LOG_LEVEL": "", "SOKOD_PLUGINS_DIRS": ""},
			want:  with(func(c *Config) { c.Log.Level = "warn" }),
		},
		{
			name:  "SOKOD_CONFIG names the file when none is given",
			files: map[string]string{"env.yaml": "limits:\n  nodes: 42\n"},
			env:   map[string]string{"SOKOD_CONFIG": "$DIR/env.yaml"},
			want:  with(func(c *Config) { c.Limits.Nodes = 42 }),
		},
		{
			name:  "--config names the file, over SOKOD_CONFIG",
			files: map[string]string{"flag.yaml": "limits:\n  nodes: 1\n"},
			env:   map[string]string{"SOKOD_CONFIG": "$DIR/missing.yaml"},
			args:  []string{"--config", "$DIR/flag.yaml"},
			want:  with(func(c *Config) { c.Limits.Nodes = 1 }),
		},
		{
			name:  "File wins over --config and SOKOD_CONFIG",
			files: map[string]string{"explicit.toml": "[limits]\nnodes = 2\n"},
			file:  "explicit.toml",
			env:   map[string]string{"SOKOD_CONFIG": "$DIR/missing.yaml"},
			args:  []string{"--config", "$DIR/missing.json"},
			want:  with(func(c *Config) { c.Limits.Nodes = 2 }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			env := make(map[string]string)
			for k, v := range tt.env {
				env[k] = strings.ReplaceAll(v, "$DIR", dir)
			}
			var args []string
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "$DIR", dir))
			}
			opts := LoadOptions{Env: envOf(env), Flags: parsedFlags(t, args...)}
			if tt.file != "" {
				opts.File = filepath.Join(dir, tt.file)
			}
			got, err := Load(opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Load mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	bad := writeFile(t, dir, "bad.yaml", "limits: [unclosed\n")
	ini := writeFile(t, dir, "sokod.ini", "[limits]\ntime=1s\n")

	tests := []struct {
		name     string
		opts     LoadOptions
		want     string // prefix of the message
		notExist bool
	}{
		{"explicit file missing", LoadOptions{File: missing}, "config: read " + missing + ": ", true},
		{"SOKOD_CONFIG file missing", LoadOptions{Env: envOf(map[string]string{"SOKOD_CONFIG": missing})},
			"config: read " + missing + " (from SOKOD_CONFIG): ", true},
		{"--config file missing", LoadOptions{Flags: parsedFlags(t, "--config="+missing)},
			"config: read " + missing + " (from --config): ", true},
		{"unparsable yaml", LoadOptions{File: bad}, "config: read " + bad + ": ", false},
		{"unsupported extension", LoadOptions{File: ini},
			"config: " + ini + `: unsupported file type "ini": want .yaml, .yml, .toml or .json`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Env == nil {
				tt.opts.Env = envOf(nil)
			}
			cfg, err := Load(tt.opts)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", cfg)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not start with %q", err, tt.want)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v (err %v)", got, tt.notExist, err)
			}
		})
	}
}

func TestLoadValueErrors(t *testing.T) {
	tests := []struct {
		name string
		file string // YAML content written to sokod.yaml, if not empty
		env  map[string]string
		args []string
		want []string // every line of the error, in order; "$FILE" is the file's path
	}{
		{
			name: "bad duration from env",
			env:  map[string]string{"SOKOD_LIMITS_TIME": "soon"},
			want: []string{`limits.time: must be a duration such as 30s, 1m30s or 2h (got "soon" from SOKOD_LIMITS_TIME)`},
		},
		{
			name: "duration without unit, string and number",
			file: "limits:\n  time: 30\nplugins:\n  start_timeout: 0\n",
			env:  map[string]string{"SOKOD_PLUGINS_START_TIMEOUT": "15"},
			want: []string{
				`plugins.start_timeout: missing unit: write a duration such as 30s, 1m30s or 2h (got "15" from SOKOD_PLUGINS_START_TIMEOUT)`,
				`limits.time: missing unit: write a duration such as 30s, 1m30s or 2h (got 30 from $FILE)`,
			},
		},
		{
			name: "bad size, bad number, negative, fraction, not a list",
			file: "limits:\n  memory: 12XB\n  nodes: -3\nserver:\n  queue: 2.5\n  memory_cap: -1\nplugins:\n  dirs: {a: b}\n",
			env:  map[string]string{"SOKOD_SERVER_MAX_JOBS": "four"},
			want: []string{
				`plugins.dirs: must be a list of strings (got map[a:b] from $FILE)`,
				`limits.memory: invalid size: unknown unit "XB": use B, K/KiB, M/MiB, G/GiB, T/TiB, P/PiB or kB, MB, GB, TB, PB (got "12XB" from $FILE)`,
				`limits.nodes: must not be negative (got -3 from $FILE)`,
				`server.max_jobs: must be a whole number (got "four" from SOKOD_SERVER_MAX_JOBS)`,
				`server.queue: must be a whole number (got 2.5 from $FILE)`,
				`server.memory_cap: invalid size: must not be negative (got -1 from $FILE)`,
			},
		},
		{
			name: "list of non-strings, string given a map",
			file: "plugins:\n  dirs: [1, 2]\nlisten:\n  unix: {path: x}\n",
			want: []string{
				`listen.unix: must be a string (got map[path:x] from $FILE)`,
				`plugins.dirs: must be a list of strings (got [1 2] from $FILE)`,
			},
		},
		{
			name: "unknown keys in the file",
			file: "limts:\n  time: 5s\nlog:\n  colour: true\n",
			want: []string{
				`limts.time: unknown key (got "5s" from $FILE)`,
				`log.colour: unknown key (got true from $FILE)`,
			},
		},
		{
			name: "validation names the layer of each value",
			file: "listen:\n  tcp: 0.0.0.0:7700\nlimits:\n  memory: 1MiB\n",
			env:  map[string]string{"SOKOD_LOG_LEVEL": "loud"},
			args: []string{"--time=0s", "--log-format=xml"},
			want: []string{
				`listen.tcp: must be a loopback address such as 127.0.0.1:7700, [::1]:7700 or localhost:7700, since the API has no authentication (got "0.0.0.0:7700" from $FILE)`,
				`limits.time: must be greater than 0 (got 0s from --time)`,
				`limits.memory: must be at least 16MiB (got 1MiB from $FILE)`,
				`log.level: must be one of trace, debug, info, warn, error, off (got "loud" from SOKOD_LOG_LEVEL)`,
				`log.format: must be text or json (got "xml" from --log-format)`,
			},
		},
		{
			name: "decode and validation errors together",
			env:  map[string]string{"SOKOD_LIMITS_NODES": "many", "SOKOD_SERVER_QUEUE": "-1", "SOKOD_FALLBACK_PORTFOLIO": "sometimes"},
			want: []string{
				`limits.nodes: must be a whole number (got "many" from SOKOD_LIMITS_NODES)`,
				`fallback.portfolio: must be true or false (got "sometimes" from SOKOD_FALLBACK_PORTFOLIO)`,
				`server.queue: must not be negative (got -1 from SOKOD_SERVER_QUEUE)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := LoadOptions{Env: envOf(tt.env), Flags: parsedFlags(t, tt.args...)}
			if tt.file != "" {
				opts.File = writeFile(t, dir, "sokod.yaml", tt.file)
			}
			cfg, err := Load(opts)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", cfg)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "$FILE", opts.File))
			}
			if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error lines mismatch (-want +got):\n%s", diff)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("errors.As(%T, *FieldError) failed", err)
			}
		})
	}
}

func TestMap(t *testing.T) {
	want := map[string]any{
		"listen.unix":              "",
		"listen.tcp":               "",
		"listen.http":              "",
		"listen.socket_group":      "",
		"listen.token_file":        "",
		"listen.metrics":           "",
		"plugins.dirs":             []string{},
		"plugins.start_timeout":    "10s",
		"plugins.sha256":           []string{},
		"fallback.planners":        []string{"fess", "relocation"},
		"fallback.search_share":    0,
		"fallback.planner_share":   80,
		"fallback.portfolio":       false,
		"limits.time":              "1m0s",
		"limits.memory":            "1GiB",
		"limits.nodes":             uint64(0),
		"server.max_jobs":          0,
		"server.queue":             16,
		"server.memory_cap":        "0",
		"server.shutdown_timeout":  "10s",
		"server.max_request_bytes": "4MiB",
		"log.level":                "info",
		"log.format":               "text",
		"store.path":               "",
		"batch.nats":               "nats://127.0.0.1:4222",
		"batch.ack_wait":           "30s",
		"batch.max_deliveries":     5,
		"batch.replicas":           1,
		"search.off":               []string{},
		"search.batch_size":        0,
	}
	if diff := cmp.Diff(want, Default().Map()); diff != "" {
		t.Errorf("Default().Map() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), Keys()); diff != "" {
		t.Errorf("Keys() mismatch (-want +got):\n%s", diff)
	}
}

// TestMapRoundTrip checks that `config show` output, written as a config
// file, loads back to the same Config.
func TestMapRoundTrip(t *testing.T) {
	for _, cfg := range []*Config{Default(), fromYAML()} {
		data, err := json.MarshalIndent(cfg.Map(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, t.TempDir(), "shown.json", string(data))
		got, err := Load(LoadOptions{File: path, Env: envOf(nil)})
		if err != nil {
			t.Fatalf("Load(%s): %v", data, err)
		}
		if diff := cmp.Diff(cfg, got); diff != "" {
			t.Errorf("round trip through %s mismatch (-want +got):\n%s", data, diff)
		}
	}
}

func TestEnvName(t *testing.T) {
	for key, want := range map[string]string{
		"limits.time":         "SOKOD_LIMITS_TIME",
		"listen.socket_group": "SOKOD_LISTEN_SOCKET_GROUP",
		"plugins.dirs":        "SOKOD_PLUGINS_DIRS",
	} {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestDecode covers conversions of raw values as viper hands them over:
// strings from the environment, and int, int64, uint64, float64 and bool
// from YAML, TOML and JSON files.
func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		dst     any // pointer to a zero value of the target type
		raw     any
		want    any
		wantErr string
	}{
		{"int from int64", new(int), int64(7), 7, ""},
		{"int from uint64", new(int), uint64(7), 7, ""},
		{"int from huge uint64", new(int), uint64(1 << 63), 0, "too large"},
		{"int from float64", new(int), 8.0, 8, ""},
		{"int from fractional float64", new(int), 8.5, 0, "must be a whole number"},
		{"int from huge float64", new(int), 1e300, 0, "too large"},
		{"int from spaced string", new(int), " 12 ", 12, ""},
		{"int from negative string", new(int), "-12", -12, ""},
		{"int from out-of-range string", new(int), "99999999999999999999", 0, "too large"},
		{"int from bool", new(int), true, 0, "must be a whole number"},
		{"bool from bool", new(bool), true, true, ""},
		{"bool from string", new(bool), " false ", false, ""},
		{"bool from junk string", new(bool), "yes please", false, "must be true or false"},
		{"bool from int", new(bool), int64(1), false, "must be true or false"},
		{"uint64 from max string", new(uint64), "18446744073709551615", uint64(1<<64 - 1), ""},
		{"uint64 from out-of-range string", new(uint64), "18446744073709551616", uint64(0), "too large"},
		{"uint64 from negative string", new(uint64), "-1", uint64(0), "must not be negative"},
		{"uint64 from junk string", new(uint64), "-x", uint64(0), "must be a whole number"},
		{"uint64 from negative float", new(uint64), -2.0, uint64(0), "must not be negative"},
		{"uint64 from fractional float", new(uint64), 2.5, uint64(0), "must be a whole number"},
		{"uint64 from huge float", new(uint64), 1e20, uint64(0), "too large"},
		{"uint64 from list", new(uint64), []any{1}, uint64(0), "must be a whole number"},
		{"duration from Duration", new(time.Duration), time.Second, time.Second, ""},
		{"duration from zero", new(time.Duration), 0, time.Duration(0), ""},
		{"duration from float", new(time.Duration), 1.5, time.Duration(0), "missing unit: write a duration such as 30s, 1m30s or 2h"},
		{"duration from bool", new(time.Duration), false, time.Duration(0), "must be a duration such as 30s, 1m30s or 2h"},
		{"size from ByteSize", new(ByteSize), MiB, MiB, ""},
		{"size from int", new(ByteSize), 2048, 2 * KiB, ""},
		{"size from float", new(ByteSize), 4096.0, 4 * KiB, ""},
		{"string from uint64", new(string), uint64(5), "5", ""},
		{"string from bool", new(string), true, "", "must be a string"},
		{"list from []string", new([]string), []string{"a"}, []string{"a"}, ""},
		{"list from empty []any", new([]string), []any{}, []string(nil), ""},
		{"list from string", new([]string), "a,b", []string{"a", "b"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := reflect.ValueOf(tt.dst).Elem()
			err := decode(dst, tt.raw)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("decode(%T %v) error = %q, want %q", tt.raw, tt.raw, gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, dst.Interface()); diff != "" {
				t.Errorf("decode(%T %v) mismatch (-want +got):\n%s", tt.raw, tt.raw, diff)
			}
		})
	}
}
