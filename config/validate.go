package config

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// MinMemory is the smallest accepted limits.memory: below it the
// transposition table is too small to be useful.
const MinMemory = 16 * MiB

// MaxBatchSize is the largest accepted search.batch_size: a batch of it on
// the largest boards stays well under the plugin protocol's message limit.
const MaxBatchSize = 65536

// FieldError reports one bad configuration value. Load and Validate return
// these joined with errors.Join; use errors.As to inspect one.
type FieldError struct {
	// Key is the dotted key, such as "limits.time".
	Key string
	// Value is the offending value: as given for a value that could not be
	// decoded, as decoded for one that failed validation.
	Value any
	// Source names the layer that supplied Value: a file path, an
	// environment variable name, a flag such as "--time", or "" when not
	// known (Validate on a Config built in code).
	Source string
	// Err is the reason.
	Err error
}

// Error returns "key: reason (got value)", with " from SOURCE" inside the
// parentheses when the source is known.
func (e *FieldError) Error() string {
	from := ""
	if e.Source != "" {
		from = " from " + e.Source
	}
	return fmt.Sprintf("%s: %v (got %s%s)", e.Key, e.Err, formatValue(e.Value), from)
}

// Unwrap returns the reason.
func (e *FieldError) Unwrap() error { return e.Err }

func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []string:
		return fmt.Sprintf("%q", v)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// Validate checks every value and reports every problem found, each as a
// *FieldError, joined with errors.Join; nil means the Config is usable.
func (c *Config) Validate() error {
	return errors.Join(c.check(nil)...)
}

// check is Validate returning the errors unjoined, with sources from src
// (key to layer) when src is not nil.
func (c *Config) check(src map[string]string) []error {
	var errs []error
	bad := func(key string, value any, reason string) {
		errs = append(errs, &FieldError{Key: key, Value: value, Source: src[key], Err: errors.New(reason)})
	}

	if c.Listen.TCP != "" {
		if reason := checkLoopback(c.Listen.TCP); reason != "" {
			bad("listen.tcp", c.Listen.TCP, reason)
		}
	}
	if c.Listen.HTTP != "" {
		if reason := checkLoopback(c.Listen.HTTP); reason != "" {
			bad("listen.http", c.Listen.HTTP, reason)
		}
	}
	if c.Listen.Metrics != "" {
		if reason := checkLoopback(c.Listen.Metrics); reason != "" {
			bad("listen.metrics", c.Listen.Metrics, reason)
		}
	}
	for _, d := range c.Plugins.Dirs {
		if strings.TrimSpace(d) == "" {
			bad("plugins.dirs", c.Plugins.Dirs, "must not contain an empty directory name")
			break
		}
	}
	for _, e := range c.Plugins.SHA256 {
		name, sum, ok := strings.Cut(e, "=")
		sum = strings.TrimSpace(sum)
		if _, err := hex.DecodeString(sum); !ok || strings.TrimSpace(name) == "" || len(sum) != 64 || err != nil {
			bad("plugins.sha256", e, "each entry must be NAME=HEX with the 64 hex digits of a sha256")
		}
	}
	if c.Plugins.StartTimeout <= 0 {
		bad("plugins.start_timeout", c.Plugins.StartTimeout, "must be greater than 0")
	}
	if c.Limits.Time <= 0 {
		bad("limits.time", c.Limits.Time, "must be greater than 0")
	}
	if c.Limits.Memory < MinMemory {
		bad("limits.memory", c.Limits.Memory, "must be at least "+MinMemory.String())
	}
	for _, p := range c.Fallback.Planners {
		if strings.TrimSpace(p) == "" {
			bad("fallback.planners", c.Fallback.Planners, "must not contain an empty name")
			break
		}
	}
	if c.Search.BatchSize < 0 || c.Search.BatchSize > MaxBatchSize {
		bad("search.batch_size", c.Search.BatchSize, fmt.Sprintf("must be from 1 to %d, or 0 for the default", MaxBatchSize))
	}
	if c.Fallback.SearchShare < 0 || c.Fallback.SearchShare > 100 {
		bad("fallback.search_share", c.Fallback.SearchShare, "must be a percentage from 1 to 100, or 0 for the objective's default")
	}
	if c.Fallback.PlannerShare < 1 || c.Fallback.PlannerShare > 100 {
		bad("fallback.planner_share", c.Fallback.PlannerShare, "must be a percentage from 1 to 100")
	}
	if c.Server.MaxJobs < 0 {
		bad("server.max_jobs", c.Server.MaxJobs, "must not be negative; 0 means one job per CPU")
	}
	if c.Server.Queue < 0 {
		bad("server.queue", c.Server.Queue, "must not be negative")
	}
	if c.Server.MemoryCap != 0 && c.Server.MemoryCap < c.Limits.Memory {
		bad("server.memory_cap", c.Server.MemoryCap,
			"must be 0 or at least limits.memory ("+c.Limits.Memory.String()+"), or no solve could start")
	}
	if c.Server.ShutdownTimeout <= 0 {
		bad("server.shutdown_timeout", c.Server.ShutdownTimeout, "must be greater than 0")
	}
	if c.Server.MaxRequestBytes < 64*KiB || c.Server.MaxRequestBytes > 1*GiB {
		bad("server.max_request_bytes", c.Server.MaxRequestBytes, "must be from 64KiB to 1GiB")
	}
	switch c.Log.Level {
	case "trace", "debug", "info", "warn", "error", "off":
	default:
		bad("log.level", c.Log.Level, "must be one of trace, debug, info, warn, error, off")
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		bad("log.format", c.Log.Format, "must be text or json")
	}
	if strings.ContainsAny(c.Store.Path, "?#") {
		bad("store.path", c.Store.Path, "must not contain '?' or '#'")
	}
	if strings.TrimSpace(c.Batch.NATS) == "" {
		bad("batch.nats", c.Batch.NATS, "must be a NATS URL such as nats://127.0.0.1:4222")
	}
	if c.Batch.AckWait < time.Second {
		bad("batch.ack_wait", c.Batch.AckWait, "must be at least 1s")
	}
	if c.Batch.MaxDeliveries < 1 {
		bad("batch.max_deliveries", c.Batch.MaxDeliveries, "must be at least 1")
	}
	if c.Batch.Replicas < 1 || c.Batch.Replicas > 5 {
		bad("batch.replicas", c.Batch.Replicas, "must be from 1 to 5")
	}
	return errs
}

// checkLoopback returns why addr is not an acceptable TCP listen address,
// or "" if it is: host:port with a numeric port and a loopback host. Port 0
// is accepted (the kernel picks one, which tests use). No name is resolved
// except the literal "localhost".
func checkLoopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "must be host:port, such as 127.0.0.1:7700"
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "port must be a number from 0 to 65535"
	}
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return "must be a loopback address such as 127.0.0.1:7700, [::1]:7700 or localhost:7700, since the API has no authentication"
	}
	return ""
}
