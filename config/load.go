package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// ConfigEnv is the environment variable naming the config file when neither
// LoadOptions.File nor the --config flag does.
const ConfigEnv = "SOKOD_CONFIG"

// LoadOptions says where Load finds the layers above the defaults.
type LoadOptions struct {
	// File is the config file path. "" means the --config flag in Flags if
	// the user set it, else $SOKOD_CONFIG, else no file. A file named by any
	// of these must exist.
	File string
	// Env looks up environment variables; nil means os.LookupEnv. Tests
	// pass a map lookup so they do not depend on the real environment.
	// A variable set to the empty string counts as unset, as in viper.
	Env func(key string) (string, bool)
	// Flags is a flag set on which RegisterFlags was called, already
	// parsed, or nil. Only flags the user set (pflag's Changed) override
	// lower layers; flags missing from the set are skipped.
	Flags *pflag.FlagSet
}

// flagKeys maps each flag RegisterFlags defines, --config aside, to its key.
var flagKeys = [...]struct{ flag, key string }{
	{"log-level", "log.level"},
	{"log-format", "log.format"},
	{"time", "limits.time"},
	{"memory", "limits.memory"},
	{"nodes", "limits.nodes"},
	{"plugin-dir", "plugins.dirs"},
	{"planners", "fallback.planners"},
	{"search-share", "fallback.search_share"},
	{"search-off", "search.off"},
	{"batch-size", "search.batch_size"},
	{"planner-share", "fallback.planner_share"},
	{"portfolio", "fallback.portfolio"},
	{"store", "store.path"},
	// --nats is the batch commands' own flag, not RegisterFlags'.
	{"nats", "batch.nats"},
}

// RegisterFlags defines on fs the flags that Load reads from
// LoadOptions.Flags: --config, --log-level, --log-format, --time, --memory,
// --nodes, --plugin-dir (repeatable), --planners, --search-share, --search-off, --batch-size, --planner-share, --portfolio and --store. Their zero defaults never override
// anything: only a flag the user sets overrides the file and environment.
func RegisterFlags(fs *pflag.FlagSet) {
	fs.String("config", "", "config `file` (.yaml, .yml, .toml or .json); default $"+ConfigEnv)
	fs.String("log-level", "", "log `level`: trace, debug, info, warn, error or off (default info)")
	fs.String("log-format", "", "log `format`: text or json (default text)")
	fs.Duration("time", 0, "time budget per solve, e.g. 30s or 5m (default 1m0s)")
	fs.Var(new(ByteSize), "memory", "memory budget per solve, e.g. 512MiB or 2GiB (default 1GiB)")
	fs.Uint64("nodes", 0, "node budget per solve; 0 means unlimited")
	fs.StringArray("plugin-dir", nil, "plugin `directory`, searched in order; repeatable (replaces plugins.dirs)")
	fs.StringSlice("planners", nil, "planner `names`, comma-separated, run in order when the exhaustive search gives up; \"none\" for none (replaces fallback.planners)")
	fs.Int("search-share", 0, "`percent` of --time the exhaustive search gets when planners follow (default: 10 under --objective any, 80 under pushes)")
	fs.StringSlice("search-off", nil, "search `techniques` to switch off, comma-separated, for experiments: pi-corrals, corral-deadlocks, frozen-goals, cluster-deadlocks, tunnels, goal-macros, home-moves, packing, restarts, second-plan, backward (replaces search.off)")
	fs.Int("batch-size", 0, "`positions` per call to a plugin heuristic or deadlock detector that answers in batches (default 1024; replaces search.batch_size)")
	fs.Int("planner-share", 0, "`percent` of the time left each planner but the last gets; the last gets all of it (default 80)")
	fs.Bool("portfolio", false, "run the planners beside the exhaustive search (two cores) instead of after it")
	fs.String("store", "", "solution store `file` (SQLite) that solve, serve and worker consult and add to; '' for none (replaces store.path)")
}

// fileType returns the viper config type for a file extension (without
// the dot, lower-case), or false if sokod does not read such files.
func fileType(ext string) (string, bool) {
	switch ext {
	case "yaml", "yml":
		return "yaml", true
	case "toml", "json":
		return ext, true
	}
	return "", false
}

// Load builds the Config from defaults, the config file, the environment and
// flags (see the package documentation) and validates it.
//
// An unreadable or unparsable file is an error naming it. Otherwise every
// bad value is reported at once, as *FieldError values joined with
// errors.Join: undecodable values (a duration without a unit, an unknown
// size suffix), keys in the file that sokod does not know, and Validate's
// findings. Each names the layer that supplied the value.
func Load(opts LoadOptions) (*Config, error) {
	env := opts.Env
	if env == nil {
		env = os.LookupEnv
	}
	v := viper.New()
	src := make(map[string]string) // key -> layer that set it, for errors

	path, from := configPath(opts, env)
	if path != "" {
		ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
		typ, ok := fileType(ext)
		if !ok {
			return nil, fmt.Errorf("config: %s%s: unsupported file type %q: want .yaml, .yml, .toml or .json", path, from, ext)
		}
		v.SetConfigFile(path)
		v.SetConfigType(typ)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config: read %s%s: %w", path, from, err)
		}
		for _, l := range leaves {
			if v.InConfig(l.key) {
				src[l.key] = path
			}
		}
	}

	// The environment and flags go into viper's override layer, flags
	// last so they win. viper's AutomaticEnv is not used: it reads the
	// process environment directly and Unmarshal does not see keys that
	// are only in the environment.
	for _, l := range leaves {
		name := EnvName(l.key)
		val, ok := env(name)
		if !ok || val == "" {
			continue
		}
		if l.isList() {
			v.Set(l.key, splitList(val))
		} else {
			v.Set(l.key, val)
		}
		src[l.key] = name
	}
	if fs := opts.Flags; fs != nil {
		for _, fk := range flagKeys {
			f := fs.Lookup(fk.flag)
			if f == nil || !f.Changed {
				continue
			}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				v.Set(fk.key, sv.GetSlice())
			} else {
				v.Set(fk.key, f.Value.String())
			}
			src[fk.key] = "--" + fk.flag
		}
	}

	// Decode by hand rather than with viper's Unmarshal so that each bad
	// value becomes its own FieldError naming key, value and layer, and so
	// that lossy conversions mapstructure allows (a bare number as a
	// duration in nanoseconds, 2.5 truncated to an int) are refused.
	var errs []error
	known := make(map[string]bool, len(leaves))
	for _, l := range leaves {
		known[l.key] = true
	}
	keys := v.AllKeys()
	slices.Sort(keys)
	for _, k := range keys {
		// A key under a leaf ("listen.unix.path") means the leaf was given
		// a table; decoding the leaf reports that, once.
		if !known[k] && !underLeaf(k, known) {
			errs = append(errs, &FieldError{Key: k, Value: v.Get(k), Source: path, Err: errUnknownKey})
		}
	}
	cfg := Default()
	root := reflect.ValueOf(cfg).Elem()
	for _, l := range leaves {
		raw := v.Get(l.key)
		if raw == nil { // absent, or null in the file: keep the default
			continue
		}
		if err := decode(root.FieldByIndex(l.index), raw); err != nil {
			errs = append(errs, &FieldError{Key: l.key, Value: raw, Source: src[l.key], Err: err})
		}
	}
	errs = append(errs, cfg.check(src)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// underLeaf reports whether key lies below one of the known leaf keys.
func underLeaf(key string, known map[string]bool) bool {
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		if known[key[:i]] {
			return true
		}
	}
	return false
}

// configPath returns the config file to read, if any, and a note on where
// its name came from for error messages.
func configPath(opts LoadOptions, env func(string) (string, bool)) (path, from string) {
	if opts.File != "" {
		return opts.File, ""
	}
	if opts.Flags != nil {
		if f := opts.Flags.Lookup("config"); f != nil && f.Changed && f.Value.String() != "" {
			return f.Value.String(), " (from --config)"
		}
	}
	if p, ok := env(ConfigEnv); ok && p != "" {
		return p, " (from " + ConfigEnv + ")"
	}
	return "", ""
}

// splitList splits an environment value into list elements at commas and
// at the OS path-list separator, dropping empty elements and spaces around
// them.
func splitList(s string) []string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == os.PathListSeparator })
	out := fields[:0]
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	byteSizeType = reflect.TypeFor[ByteSize]()
	stringsType  = reflect.TypeFor[[]string]()
)

func (l leaf) isList() bool {
	return reflect.TypeFor[Config]().FieldByIndex(l.index).Type == stringsType
}

var (
	errUnknownKey  = errors.New("unknown key")
	errWholeNumber = errors.New("must be a whole number")
	errNegative    = errors.New("must not be negative")
	errTooLarge    = errors.New("too large")
)

// decode converts raw, a value from viper (a string from the environment or
// a flag; a string, number, bool or list from a file), to dst's type and
// stores it. The error, if any, is the reason only; the caller adds the key
// and value.
func decode(dst reflect.Value, raw any) error {
	switch dst.Type() {
	case durationType:
		d, err := toDuration(raw)
		if err != nil {
			return err
		}
		dst.SetInt(int64(d))
		return nil
	case byteSizeType:
		b, err := toByteSize(raw)
		if err != nil {
			return err
		}
		dst.SetUint(uint64(b))
		return nil
	case stringsType:
		list, err := toList(raw)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(list))
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		s, err := toString(raw)
		if err != nil {
			return err
		}
		dst.SetString(s)
	case reflect.Int:
		n, err := toInt(raw)
		if err != nil {
			return err
		}
		if dst.OverflowInt(n) {
			return errTooLarge
		}
		dst.SetInt(n)
	case reflect.Uint64:
		n, err := toUint(raw)
		if err != nil {
			return err
		}
		dst.SetUint(n)
	case reflect.Bool:
		v, err := toBool(raw)
		if err != nil {
			return err
		}
		dst.SetBool(v)
	default:
		panic("config: no decoder for " + dst.Type().String()) // a new field type needs a case here
	}
	return nil
}

// toBool takes a bool from a file, or true/false text (as strconv reads
// it: 1, t, TRUE, ...) from the environment or a flag.
func toBool(raw any) (bool, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return false, errors.New("must be true or false")
		}
		return b, nil
	}
	return false, errors.New("must be true or false")
}

func toString(raw any) (string, error) {
	if s, ok := raw.(string); ok {
		return s, nil
	}
	// A number is taken as its decimal text: socket_group: 1000 names a
	// group by id.
	switch rv := reflect.ValueOf(raw); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	}
	return "", errors.New("must be a string")
}

func toInt(raw any) (int64, error) {
	if s, ok := raw.(string); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, errTooLarge
		}
		if err != nil {
			return 0, errWholeNumber
		}
		return n, nil
	}
	switch rv := reflect.ValueOf(raw); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() > math.MaxInt64 {
			return 0, errTooLarge
		}
		return int64(rv.Uint()), nil
	case reflect.Float32, reflect.Float64: // JSON numbers
		f := rv.Float()
		if f != math.Trunc(f) {
			return 0, errWholeNumber
		}
		if f < math.MinInt64 || f >= math.MaxInt64 {
			return 0, errTooLarge
		}
		return int64(f), nil
	}
	return 0, errWholeNumber
}

func toUint(raw any) (uint64, error) {
	if s, ok := raw.(string); ok {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "-") {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return 0, errNegative
			}
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, errTooLarge
		}
		if err != nil {
			return 0, errWholeNumber
		}
		return n, nil
	}
	switch rv := reflect.ValueOf(raw); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if rv.Int() < 0 {
			return 0, errNegative
		}
		return uint64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return rv.Uint(), nil
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if f != math.Trunc(f) {
			return 0, errWholeNumber
		}
		if f < 0 {
			return 0, errNegative
		}
		if f >= math.MaxUint64 {
			return 0, errTooLarge
		}
		return uint64(f), nil
	}
	return 0, errWholeNumber
}

// toDuration accepts Go duration text. A bare number is refused unless it
// is zero: "limits.time: 30" is more likely meant as seconds than as 30ns.
func toDuration(raw any) (time.Duration, error) {
	switch x := raw.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			if _, numErr := strconv.ParseFloat(strings.TrimSpace(x), 64); numErr == nil {
				return 0, errors.New("missing unit: write a duration such as 30s, 1m30s or 2h")
			}
			return 0, errors.New("must be a duration such as 30s, 1m30s or 2h")
		}
		return d, nil
	}
	switch rv := reflect.ValueOf(raw); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if rv.IsZero() {
			return 0, nil
		}
		return 0, errors.New("missing unit: write a duration such as 30s, 1m30s or 2h")
	}
	return 0, errors.New("must be a duration such as 30s, 1m30s or 2h")
}

// toByteSize accepts ByteSize text or a number of bytes.
func toByteSize(raw any) (ByteSize, error) {
	switch x := raw.(type) {
	case ByteSize:
		return x, nil
	case string:
		b, err := parseByteSize(x)
		if err != nil {
			return 0, fmt.Errorf("invalid size: %w", err)
		}
		return b, nil
	}
	n, err := toUint(raw)
	if err != nil {
		return 0, fmt.Errorf("invalid size: %w", err)
	}
	return ByteSize(n), nil
}

// toList accepts a list of strings, or one string split as in the
// environment.
func toList(raw any) ([]string, error) {
	var out []string
	switch x := raw.(type) {
	case string:
		out = splitList(x)
	case []string:
		out = slices.Clone(x)
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("must be a list of strings")
			}
			out = append(out, s)
		}
	default:
		return nil, errors.New("must be a list of strings")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
