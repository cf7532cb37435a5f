package config_test

import (
	"encoding/json"
	"fmt"

	"github.com/sokod/sokod/config"
	"github.com/spf13/pflag"
)

// Load layers flags over the environment over the defaults; Map gives the
// effective configuration for `sokod config show`.
func ExampleLoad() {
	fs := pflag.NewFlagSet("sokod", pflag.ContinueOnError)
	config.RegisterFlags(fs)
	if err := fs.Parse([]string{"--time=30s", "--plugin-dir=/opt/sokod/plugins"}); err != nil {
		fmt.Println(err)
		return
	}
	env := map[string]string{"SOKOD_LIMITS_TIME": "5m", "SOKOD_LIMITS_MEMORY": "2GiB"}
	cfg, err := config.Load(config.LoadOptions{
		Flags: fs,
		Env:   func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.MarshalIndent(cfg.Map(), "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "batch.ack_wait": "30s",
	//   "batch.max_deliveries": 5,
	//   "batch.nats": "nats://127.0.0.1:4222",
	//   "batch.replicas": 1,
	//   "fallback.planner_share": 80,
	//   "fallback.planners": [
	//     "fess",
	//     "relocation"
	//   ],
	//   "fallback.portfolio": false,
	//   "fallback.search_share": 0,
	//   "limits.memory": "2GiB",
	//   "limits.nodes": 0,
	//   "limits.time": "30s",
	//   "listen.http": "",
	//   "listen.metrics": "",
	//   "listen.socket_group": "",
	//   "listen.tcp": "",
	//   "listen.token_file": "",
	//   "listen.unix": "",
	//   "log.format": "text",
	//   "log.level": "info",
	//   "plugins.dirs": [
	//     "/opt/sokod/plugins"
	//   ],
	//   "plugins.sha256": [],
	//   "plugins.start_timeout": "10s",
	//   "search.batch_size": 0,
	//   "search.off": [],
	//   "server.max_jobs": 0,
	//   "server.max_request_bytes": "4MiB",
	//   "server.memory_cap": "0",
	//   "server.queue": 16,
	//   "server.shutdown_timeout": "10s",
	//   "store.path": ""
	// }
}
