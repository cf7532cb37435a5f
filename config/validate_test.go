package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	const loopback = "must be a loopback address such as 127.0.0.1:7700, [::1]:7700 or localhost:7700, since the API has no authentication"
	tests := []struct {
		name   string
		change func(c *Config)
		want   []string // error lines; nil means valid
	}{
		{"default", func(c *Config) {}, nil},
		{"tcp on IPv4 loopback", func(c *Config) { c.Listen.TCP = "127.0.0.1:7700" }, nil},
		{"tcp on other 127/8 address, port 0", func(c *Config) { c.Listen.TCP = "127.1.2.3:0" }, nil},
		{"tcp on IPv6 loopback", func(c *Config) { c.Listen.TCP = "[::1]:65535" }, nil},
		{"tcp on localhost", func(c *Config) { c.Listen.TCP = "LocalHost:7700" }, nil},
		{"memory cap equal to memory", func(c *Config) { c.Server.MemoryCap = c.Limits.Memory }, nil},
		{"smallest memory", func(c *Config) { c.Limits.Memory = 16 * MiB }, nil},
		{"every level and format", func(c *Config) { c.Log = Log{Level: "off", Format: "json"} }, nil},
		{"zero jobs, queue and nodes", func(c *Config) { c.Server.MaxJobs, c.Server.Queue, c.Limits.Nodes = 0, 0, 0 }, nil},

		{"tcp without port", func(c *Config) { c.Listen.TCP = "127.0.0.1" },
			[]string{`listen.tcp: must be host:port, such as 127.0.0.1:7700 (got "127.0.0.1")`}},
		{"tcp on all interfaces", func(c *Config) { c.Listen.TCP = ":7700" },
			[]string{`listen.tcp: ` + loopback + ` (got ":7700")`}},
		{"tcp on a public address", func(c *Config) { c.Listen.TCP = "192.0.2.1:7700" },
			[]string{`listen.tcp: ` + loopback + ` (got "192.0.2.1:7700")`}},
		{"tcp on IPv6 any", func(c *Config) { c.Listen.TCP = "[::]:7700" },
			[]string{`listen.tcp: ` + loopback + ` (got "[::]:7700")`}},
		{"tcp on a host name", func(c *Config) { c.Listen.TCP = "example.com:7700" },
			[]string{`listen.tcp: ` + loopback + ` (got "example.com:7700")`}},
		{"http on a public address", func(c *Config) { c.Listen.HTTP = "192.0.2.1:7701" },
			[]string{`listen.http: ` + loopback + ` (got "192.0.2.1:7701")`}},
		{"http on loopback", func(c *Config) { c.Listen.HTTP = "127.0.0.1:0" }, nil},
		{"tcp with named port", func(c *Config) { c.Listen.TCP = "127.0.0.1:http" },
			[]string{`listen.tcp: port must be a number from 0 to 65535 (got "127.0.0.1:http")`}},
		{"tcp with port out of range", func(c *Config) { c.Listen.TCP = "127.0.0.1:65536" },
			[]string{`listen.tcp: port must be a number from 0 to 65535 (got "127.0.0.1:65536")`}},
		{"empty plugin dir", func(c *Config) { c.Plugins.Dirs = []string{"/a", " "} },
			[]string{`plugins.dirs: must not contain an empty directory name (got ["/a" " "])`}},
		{"sha256 pins", func(c *Config) {
			c.Plugins.SHA256 = []string{"fess=" + strings.Repeat("ab", 32), "matching", "=" + strings.Repeat("0", 64), "x=12"}
		}, []string{
			`plugins.sha256: each entry must be NAME=HEX with the 64 hex digits of a sha256 (got "matching")`,
			`plugins.sha256: each entry must be NAME=HEX with the 64 hex digits of a sha256 (got "=` + strings.Repeat("0", 64) + `")`,
			`plugins.sha256: each entry must be NAME=HEX with the 64 hex digits of a sha256 (got "x=12")`,
		}},
		{"search share", func(c *Config) { c.Fallback.SearchShare = 101 },
			[]string{`fallback.search_share: must be a percentage from 1 to 100, or 0 for the objective's default (got 101)`}},
		{"planner share", func(c *Config) { c.Fallback.PlannerShare = 0 },
			[]string{`fallback.planner_share: must be a percentage from 1 to 100 (got 0)`}},
		{"empty planner", func(c *Config) { c.Fallback.Planners = []string{"fess", ""} },
			[]string{`fallback.planners: must not contain an empty name (got ["fess" ""])`}},
		{"zero start timeout", func(c *Config) { c.Plugins.StartTimeout = 0 },
			[]string{`plugins.start_timeout: must be greater than 0 (got 0s)`}},
		{"zero time", func(c *Config) { c.Limits.Time = 0 },
			[]string{`limits.time: must be greater than 0 (got 0s)`}},
		{"negative time", func(c *Config) { c.Limits.Time = -time.Second },
			[]string{`limits.time: must be greater than 0 (got -1s)`}},
		{"memory below 16MiB", func(c *Config) { c.Limits.Memory = 16*MiB - 1 },
			[]string{`limits.memory: must be at least 16MiB (got 16777215B)`}},
		{"negative max jobs", func(c *Config) { c.Server.MaxJobs = -1 },
			[]string{`server.max_jobs: must not be negative; 0 means one job per CPU (got -1)`}},
		{"zero shutdown timeout", func(c *Config) { c.Server.ShutdownTimeout = 0 },
			[]string{`server.shutdown_timeout: must be greater than 0 (got 0s)`}},
		{"negative queue", func(c *Config) { c.Server.Queue = -2 },
			[]string{`server.queue: must not be negative (got -2)`}},
		{"memory cap below memory", func(c *Config) { c.Server.MemoryCap = 512 * MiB },
			[]string{`server.memory_cap: must be 0 or at least limits.memory (1GiB), or no solve could start (got 512MiB)`}},
		{"unknown level", func(c *Config) { c.Log.Level = "INFO" },
			[]string{`log.level: must be one of trace, debug, info, warn, error, off (got "INFO")`}},
		{"empty level", func(c *Config) { c.Log.Level = "" },
			[]string{`log.level: must be one of trace, debug, info, warn, error, off (got "")`}},
		{"unknown format", func(c *Config) { c.Log.Format = "logfmt" },
			[]string{`log.format: must be text or json (got "logfmt")`}},
		{"store path with a query", func(c *Config) { c.Store.Path = "/tmp/s.db?mode=ro" },
			[]string{`store.path: must not contain '?' or '#' (got "/tmp/s.db?mode=ro")`}},
		{"batch settings", func(c *Config) {
			c.Batch = Batch{NATS: " ", AckWait: 500 * time.Millisecond, MaxDeliveries: 0, Replicas: 7}
		}, []string{
			`batch.nats: must be a NATS URL such as nats://127.0.0.1:4222 (got " ")`,
			`batch.ack_wait: must be at least 1s (got 500ms)`,
			`batch.max_deliveries: must be at least 1 (got 0)`,
			`batch.replicas: must be from 1 to 5 (got 7)`,
		}},
		{"every problem at once", func(c *Config) {
			c.Listen.TCP = "0.0.0.0:1"
			c.Plugins.StartTimeout = -1
			c.Limits = Limits{Time: 0, Memory: 8 * MiB}
			c.Server = Server{MaxJobs: -1, Queue: -1, MemoryCap: 4 * MiB}
			c.Log = Log{Level: "x", Format: "y"}
		}, []string{
			`listen.tcp: ` + loopback + ` (got "0.0.0.0:1")`,
			`plugins.start_timeout: must be greater than 0 (got -1ns)`,
			`limits.time: must be greater than 0 (got 0s)`,
			`limits.memory: must be at least 16MiB (got 8MiB)`,
			`server.max_jobs: must not be negative; 0 means one job per CPU (got -1)`,
			`server.queue: must not be negative (got -1)`,
			`server.memory_cap: must be 0 or at least limits.memory (8MiB), or no solve could start (got 4MiB)`,
			`server.shutdown_timeout: must be greater than 0 (got 0s)`,
			`server.max_request_bytes: must be from 64KiB to 1GiB (got 0)`,
			`log.level: must be one of trace, debug, info, warn, error, off (got "x")`,
			`log.format: must be text or json (got "y")`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.change(c)
			err := c.Validate()
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFieldErrorAs(t *testing.T) {
	c := Default()
	c.Limits.Time = 0
	c.Log.Format = "xml"
	err := c.Validate()
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("errors.As(%v) failed", err)
	}
	want := &FieldError{Key: "limits.time", Value: time.Duration(0), Source: ""}
	if diff := cmp.Diff(want, fe, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
		t.Errorf("first FieldError mismatch (-want +got):\n%s", diff)
	}
	if fe.Err == nil || fe.Err.Error() != "must be greater than 0" || errors.Unwrap(fe) != fe.Err {
		t.Errorf("FieldError.Err = %v, Unwrap = %v", fe.Err, errors.Unwrap(fe))
	}
}

func TestChecksums(t *testing.T) {
	sum := strings.Repeat("AB", 32)
	got := Plugins{SHA256: []string{"fess=" + sum, " packing = " + strings.Repeat("01", 32)}}.Checksums()
	want := map[string]string{"fess": strings.ToLower(sum), "packing": strings.Repeat("01", 32)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Checksums (-want +got):\n%s", d)
	}
	if got := (Plugins{}).Checksums(); got != nil {
		t.Errorf("no pins: %v, want nil", got)
	}
}
