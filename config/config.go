// Package config is the typed configuration of the sokod daemon and CLI.
//
// Values come from four layers, each overriding the one before:
//
//  1. built-in defaults (Default);
//  2. a config file, YAML, TOML or JSON by its extension, named by
//     LoadOptions.File, else the --config flag, else $SOKOD_CONFIG;
//  3. environment variables named SOKOD_ plus the key upper-cased with dots
//     replaced by underscores: SOKOD_LIMITS_TIME, SOKOD_LOG_LEVEL;
//  4. command-line flags registered by RegisterFlags that the user set.
//
// Keys are dotted, as in "limits.time"; in a file they nest (a "limits"
// table with a "time" entry) or appear flat with the dots. Every key and its
// default:
//
//	listen.unix           ""      Unix socket path; "" means $XDG_RUNTIME_DIR/sokod.sock, else a short temp path
//	listen.tcp            ""      loopback host:port for gRPC over TCP; "" means off
//	listen.http           ""      loopback host:port for HTTP: Connect, gRPC-Web, gRPC and the web app; "" means off
//	listen.socket_group   ""      group that may use the socket (mode 0660); "" means mode 0600
//	listen.token_file     ""      the token TCP and HTTP clients present, written by the daemon; "" means sokod.token beside the socket
//	listen.metrics        ""      loopback host:port serving Prometheus metrics at /metrics; "" means off
//	plugins.dirs          []      directories searched for plugin binaries
//	plugins.start_timeout 10s     time a plugin has to start and complete its handshake
//	plugins.sha256        []      pins: NAME=HEX, the sha256 a plugin's binary must have to be started
//	limits.time           1m0s    time budget of one solve
//	limits.memory         1GiB    memory budget of one solve, at least 16MiB
//	limits.nodes          0       node budget of one solve; 0 means unlimited
//	fallback.planners     [fess relocation]  planners run in order when the exhaustive search gives up; [] or [none] means none
//	fallback.search_share 0       percent of limits.time the exhaustive search gets when planners follow; 0 means 10 under objective any, 80 under pushes
//	fallback.planner_share 80     percent of the time left each planner but the last gets; the last gets all of it
//	fallback.portfolio    false   run the planners beside the exhaustive search (two cores), not after it
//	server.max_jobs       0       solves running at once; 0 means the number of CPUs
//	server.queue          16      solves waiting for a slot before new ones are refused
//	server.memory_cap     0       total memory of running solves; 0 means no cap beyond limits.memory per job
//	server.shutdown_timeout 10s   time the daemon gives its calls to end on SIGINT/SIGTERM before it cuts them
//	server.max_request_bytes 4MiB largest request the daemon reads, gRPC and HTTP alike
//	log.level             info    trace, debug, info, warn, error or off
//	log.format            text    text or json
//	store.path            ""      solution store (SQLite file) used by solve, serve and worker; "" means none
//	batch.nats            nats://127.0.0.1:4222  NATS server of batch submit, status, results and worker
//	batch.ack_wait        30s     time a job may go unacknowledged before another worker gets it
//	batch.max_deliveries  5       deliveries of one job before it is answered as failed
//	batch.replicas        1       replicas of the batch streams on a NATS cluster
//	search.off            []      search techniques switched off in solve and bench, for experiments: pi-corrals, corral-deadlocks, frozen-goals, cluster-deadlocks, tunnels, goal-macros, home-moves, packing, restarts, second-plan, backward
//	search.batch_size     0       positions per call to a heuristic or deadlock detector that answers in batches; 0 means 1024
//
// Durations are Go durations ("90s", "1m30s"); sizes are ByteSize text
// ("512MiB", "2GiB", "1GB"). The package keeps no mutable state: Load builds
// a fresh viper instance each call and reads the environment through
// LoadOptions.Env.
package config

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// Config is the whole configuration of sokod. Load returns one that has
// passed Validate; Default returns the built-in one.
type Config struct {
	Listen   Listen   `mapstructure:"listen"`
	Plugins  Plugins  `mapstructure:"plugins"`
	Limits   Limits   `mapstructure:"limits"`
	Fallback Fallback `mapstructure:"fallback"`
	Server   Server   `mapstructure:"server"`
	Log      Log      `mapstructure:"log"`
	Store    Store    `mapstructure:"store"`
	Batch    Batch    `mapstructure:"batch"`
	Search   Search   `mapstructure:"search"`
}

// Search tunes the exhaustive search.
type Search struct {
	// Off names search techniques to switch off (engine.ParseTechniques
	// reads them) in sokod solve and bench; the daemon and the batch
	// workers always search with all of them. Switching one off is for
	// experiments and for measuring what it is worth.
	Off []string `mapstructure:"off"`
	// BatchSize is the number of positions the search sends in one call
	// to a plugin heuristic or deadlock detector that answers in batches
	// (Estimate, Check); 0 means the engine's default. Larger batches
	// spread a call's cost thinner but hold children back from the open
	// lists longer.
	BatchSize int `mapstructure:"batch_size"`
}

// Listen says where the daemon accepts gRPC connections.
type Listen struct {
	// Unix is the path of the daemon's Unix socket. "" means
	// $XDG_RUNTIME_DIR/sokod.sock, or a short path in the temporary
	// directory when XDG_RUNTIME_DIR is unset; the daemon resolves it.
	Unix string `mapstructure:"unix"`
	// TCP is a host:port on which the daemon also listens, "" for none.
	// The host must be a loopback address (127.0.0.0/8, ::1 or localhost):
	// the API has no authentication, so it is never exposed beyond the host.
	TCP string `mapstructure:"tcp"`
	// HTTP is a host:port on which the daemon serves HTTP, "" for none: the
	// API with Connect (also gRPC-Web and gRPC) and the web app at /. Like
	// TCP it must be a loopback address.
	HTTP string `mapstructure:"http"`
	// SocketGroup is the group that may connect to the Unix socket. "" makes
	// the socket mode 0600 (owner only); otherwise the daemon gives the
	// socket this group and mode 0660. The daemon checks that it exists.
	SocketGroup string `mapstructure:"socket_group"`
	// TokenFile is where the daemon writes, readable by its user only, the
	// token a client on TCP (gRPC) must present and one on HTTP may; ""
	// means sokod.token in the socket's directory. The daemon writes a new
	// token when it starts with TCP or HTTP on; sokod's own clients read
	// it from here.
	TokenFile string `mapstructure:"token_file"`
	// Metrics is a loopback host:port on which the daemon serves its
	// Prometheus metrics at /metrics; "" means none.
	Metrics string `mapstructure:"metrics"`
}

// Plugins configures discovery and launch of external plugin processes.
type Plugins struct {
	// Dirs are the directories searched for sokod-plugin-* binaries, in
	// order. In the environment they are one string separated by commas or
	// by the OS path-list separator (":" on Unix).
	Dirs []string `mapstructure:"dirs"`
	// StartTimeout bounds how long a plugin may take to start and complete
	// its handshake before it is reported as failed.
	StartTimeout time.Duration `mapstructure:"start_timeout"`
	// SHA256 pins plugin binaries: each entry is NAME=HEX, the plugin's
	// name (its binary's name without sokod-plugin-) and the lower-case
	// hex sha256 its binary must have. A pinned plugin whose binary differs
	// is never started; unpinned plugins start as found.
	SHA256 []string `mapstructure:"sha256"`
}

// Fallback is what a solve does when the exhaustive search gives up.
type Fallback struct {
	// Planners are component names, run in order with the time that is
	// left; empty, or the one name "none", means no fall-back. The
	// default is the built-in planners, the stronger first.
	Planners []string `mapstructure:"planners"`
	// SearchShare is the percentage (1 to 100) of the time budget the
	// exhaustive search gets when planners follow it. 0 means the
	// solver's default for the solve's objective (see the table above):
	// larger under pushes, where only the search can prove optimality.
	SearchShare int `mapstructure:"search_share"`
	// PlannerShare is the percentage (1 to 100) of the time left that each
	// planner but the last gets; the last gets all that is left.
	PlannerShare int `mapstructure:"planner_share"`
	// Portfolio runs the planners beside the exhaustive search, each with
	// the whole time budget and half the memory, the first to settle the
	// level stopping the other. A solve then keeps two cores busy;
	// SearchShare is unused.
	Portfolio bool `mapstructure:"portfolio"`
}

// Checksums returns the sha256 pins by plugin name. Validate has checked
// their form.
func (p Plugins) Checksums() map[string]string {
	if len(p.SHA256) == 0 {
		return nil
	}
	m := make(map[string]string, len(p.SHA256))
	for _, e := range p.SHA256 {
		name, sum, _ := strings.Cut(e, "=")
		m[strings.TrimSpace(name)] = strings.ToLower(strings.TrimSpace(sum))
	}
	return m
}

// Limits is the default budget of one solve; a request may ask for less.
type Limits struct {
	// Time is the wall-clock budget of one solve, planners included.
	Time time.Duration `mapstructure:"time"`
	// Memory bounds the memory one solve may use, the transposition table
	// chief among it; the table is sized from it.
	Memory ByteSize `mapstructure:"memory"`
	// Nodes bounds the number of nodes one search expands; 0 means no bound.
	Nodes uint64 `mapstructure:"nodes"`
}

// Server sets the daemon's admission limits.
type Server struct {
	// MaxJobs is how many solves run at once; 0 means runtime.NumCPU().
	MaxJobs int `mapstructure:"max_jobs"`
	// Queue is how many solves may wait for a free slot; further requests
	// are refused with ResourceExhausted. 0 means none wait.
	Queue int `mapstructure:"queue"`
	// MemoryCap bounds the summed memory budgets of running solves; a solve
	// whose budget does not fit waits in the queue. 0 means no cap beyond
	// Limits.Memory per solve. When set it must be at least Limits.Memory.
	MemoryCap ByteSize `mapstructure:"memory_cap"`
	// ShutdownTimeout bounds a graceful stop: on SIGINT or SIGTERM the
	// daemon cancels its jobs, lets their clients receive the CANCELLED
	// results and finishes the calls in flight, and after this long closes
	// whatever connections remain.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	// MaxRequestBytes bounds one request's encoded size, over gRPC and
	// HTTP alike; a larger one is refused (RESOURCE_EXHAUSTED) before it
	// is read whole. A level text is at most a few hundred kilobytes.
	MaxRequestBytes ByteSize `mapstructure:"max_request_bytes"`
}

// Log configures the daemon's logger (see internal/logging).
type Log struct {
	// Level is the least severe level written: trace, debug, info, warn,
	// error, or off for none.
	Level string `mapstructure:"level"`
	// Format is text (human-readable) or json (one object per line).
	Format string `mapstructure:"format"`
}

// Store configures the solution store (internal/store).
type Store struct {
	// Path is the store's SQLite file, created when missing; "" means no
	// store. Daemons, workers and solves on one machine may share it.
	Path string `mapstructure:"path"`
}

// Batch configures batch solving on NATS JetStream (internal/batch).
type Batch struct {
	// NATS is the URL of the NATS server (with JetStream) that batch
	// submit, status, results and worker use; a list of URLs separated by
	// commas names a cluster. User and password or a token go in the URL.
	NATS string `mapstructure:"nats"`
	// AckWait is how long a job may go without an acknowledgement before
	// JetStream gives it to another worker: the time a dead worker's job
	// waits. Workers acknowledge a running solve every third of it.
	AckWait time.Duration `mapstructure:"ack_wait"`
	// MaxDeliveries is how many times a job is delivered before it is
	// answered as failed, so a level that kills its workers is not handed
	// out forever.
	MaxDeliveries int `mapstructure:"max_deliveries"`
	// Replicas is the replica count of the batch streams and bucket on a
	// NATS cluster, set when they are created.
	Replicas int `mapstructure:"replicas"`
}

// Default returns the built-in configuration, the bottom layer of Load.
func Default() *Config {
	return &Config{
		Plugins:  Plugins{StartTimeout: 10 * time.Second},
		Limits:   Limits{Time: 60 * time.Second, Memory: GiB},
		Fallback: Fallback{Planners: []string{"fess", "relocation"}, PlannerShare: 80},
		Server:   Server{Queue: 16, ShutdownTimeout: 10 * time.Second, MaxRequestBytes: 4 * MiB},
		Log:      Log{Level: "info", Format: "text"},
		Batch:    Batch{NATS: "nats://127.0.0.1:4222", AckWait: 30 * time.Second, MaxDeliveries: 5, Replicas: 1},
	}
}

// Map returns the configuration keyed by dotted key ("limits.time"), for
// `sokod config show`. Every key is present. Values are strings, ints,
// uint64s or []string (never nil): durations and sizes appear as the text
// a config file takes ("1m0s", "1GiB"), so the map marshalled by
// encoding/json or a YAML encoder, which both sort map keys, is stable
// output that Load reads back as a config file to the same Config.
func (c *Config) Map() map[string]any {
	m := make(map[string]any, len(leaves))
	root := reflect.ValueOf(c).Elem()
	for _, l := range leaves {
		switch v := root.FieldByIndex(l.index).Interface().(type) {
		case time.Duration:
			m[l.key] = v.String()
		case ByteSize:
			m[l.key] = v.String()
		case []string:
			m[l.key] = append([]string{}, v...)
		default:
			m[l.key] = v
		}
	}
	return m
}

// Keys returns every configuration key, dotted, sorted.
func Keys() []string {
	keys := make([]string, len(leaves))
	for i, l := range leaves {
		keys[i] = l.key
	}
	slices.Sort(keys)
	return keys
}

// EnvName returns the environment variable that sets key:
// EnvName("limits.time") is "SOKOD_LIMITS_TIME".
func EnvName(key string) string {
	return "SOKOD_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// leaf is one configuration key and where its value lives in Config.
type leaf struct {
	key   string
	index []int // reflect field index path from Config
}

// leaves lists every key in Config field order, derived once from the
// mapstructure tags so the tags are the only place a key is spelled. It is
// never modified after initialisation.
var leaves = collectLeaves(reflect.TypeFor[Config](), "", nil)

func collectLeaves(t reflect.Type, prefix string, index []int) []leaf {
	var out []leaf
	for i := range t.NumField() {
		f := t.Field(i)
		key := prefix + f.Tag.Get("mapstructure")
		idx := append(slices.Clip(index), i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, collectLeaves(f.Type, key+".", idx)...)
			continue
		}
		out = append(out, leaf{key: key, index: idx})
	}
	return out
}
