// Package supervisor runs sokod's external plugins: it discovers
// sokod-plugin-* executables in the configured directories, checks pinned
// checksums, launches them through hashicorp/go-plugin (gRPC only, the SDK's
// handshake, mTLS where the transport is TCP, Pdeathsig on Linux), and
// supervises them. A plugin that crashes, hangs or answers garbage makes the
// call fail fast with a typed *Error, is killed and restarted with
// exponential backoff, and is taken out of use after repeated failures.
// Plugin log lines are re-emitted under the daemon's logger.
//
// A Plugin's components (Plugin.Heuristic, Plugin.Deadlocks,
// Plugin.Planner) implement the SDK's interfaces with every call
// supervised. Package registry puts them beside the built-ins under one
// namespace; package hostservice is what a plugin planner calls back.
package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginclient"
)

// Options configure a Supervisor. The zero value of each field means its
// default.
type Options struct {
	// Dirs are searched for plugin binaries, in order (plugins.dirs).
	Dirs []string
	// StartTimeout bounds a plugin's start: process, handshake and Info
	// (plugins.start_timeout). Default 10s.
	StartTimeout time.Duration
	// Checksums pins plugins by name to the lower-case hex sha256 of their
	// binary. A pinned plugin whose binary differs is not started; a
	// plugin without an entry is started unchecked.
	Checksums map[string]string
	// CallTimeout bounds one call other than Plan; a call that takes
	// longer means the plugin hung. Default 30s, far above what compiling
	// tables takes even for the largest boards, so only a real hang hits
	// it.
	CallTimeout time.Duration
	// PingInterval is how often a running plugin is asked, through the
	// gRPC health service, whether it still answers; one that does not
	// within PingTimeout has hung (a stopped process, a deadlock) and is
	// killed and restarted, whether or not a call is under way. Defaults
	// 1s and 2s.
	PingInterval, PingTimeout time.Duration
	// MaxFailures is the number of failures in a row (crashes, hangs,
	// garbage, failed starts) after which a plugin is taken out of use. A
	// successful call resets the count. Default 5.
	MaxFailures int
	// MinBackoff and MaxBackoff bound the wait before a restart, which
	// doubles with each failure in a row. Defaults 250ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// AlwaysMTLS turns on go-plugin's AutoMTLS also where the transport is
	// a Unix socket. It is always on where go-plugin uses TCP (Windows),
	// since a loopback port is open to every local user; a Unix socket in
	// a private temporary directory is not, and TLS would cost every call.
	AlwaysMTLS bool
	// Logger receives the host's messages and the plugins' re-emitted log
	// lines, under "plugin.NAME". Nil discards them.
	Logger hclog.Logger
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 5
	}
	if o.PingInterval <= 0 {
		o.PingInterval = time.Second
	}
	if o.PingTimeout <= 0 {
		o.PingTimeout = 2 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 250 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(30*time.Second, o.MinBackoff)
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	return o
}

// Supervisor owns the plugin processes.
type Supervisor struct {
	opts     Options
	log      hclog.Logger
	plugins  []*Plugin // sorted by name, shadowed ones after the one in use
	warnings []error
}

// New discovers the plugins in opts.Dirs without starting them. Warnings
// (missing directories, files that are not usable plugins) are logged and
// kept for Warnings.
func New(opts Options) *Supervisor {
	opts = opts.withDefaults()
	h := &Supervisor{opts: opts, log: opts.Logger.Named("plugin")}
	found, warnings := Discover(opts.Dirs)
	sortCandidates(found)
	for _, w := range warnings {
		h.log.Warn("plugin discovery", "warning", w)
	}
	h.warnings = warnings
	for _, c := range found {
		p := &Plugin{host: h, name: c.Name, path: c.Path, shadowedBy: c.ShadowedBy, log: h.log.Named(c.Name), state: StateStopped}
		if c.ShadowedBy != "" {
			p.state = StateShadowed
		}
		h.plugins = append(h.plugins, p)
	}
	return h
}

// Warnings returns the problems discovery found.
func (h *Supervisor) Warnings() []error { return h.warnings }

// Start launches every discovered plugin that is not shadowed or already
// started, in parallel, and waits until each has started or failed. A
// plugin that fails to start is retried in the background with backoff,
// like one that crashed; Start itself fails only when ctx ends first.
func (h *Supervisor) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, p := range h.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Start(ctx)
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("starting plugins: %w", ctx.Err())
	}
}

// Plugins returns every discovered plugin, by name.
func (h *Supervisor) Plugins() []*Plugin { return h.plugins }

// Lookup returns the plugin in use under name, or nil.
func (h *Supervisor) Lookup(name string) *Plugin {
	for _, p := range h.plugins {
		if p.name == name && p.shadowedBy == "" {
			return p
		}
	}
	return nil
}

// Close stops every plugin process and any pending restart. Calls made
// afterwards fail with ErrClosed.
func (h *Supervisor) Close() {
	var wg sync.WaitGroup
	for _, p := range h.plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.close()
		}()
	}
	wg.Wait()
}

// State is where a plugin is in its life.
type State string

// The plugin states.
const (
	// StateStopped: not started yet.
	StateStopped State = "stopped"
	// StateStarting: the process is being launched.
	StateStarting State = "starting"
	// StateReady: the plugin answers calls.
	StateReady State = "ready"
	// StateRestarting: the plugin failed and waits out its backoff; calls
	// fail fast with ErrUnavailable.
	StateRestarting State = "restarting"
	// StateDisabled: the plugin has been taken out of use; calls fail with
	// ErrDisabled.
	StateDisabled State = "disabled"
	// StateShadowed: a plugin of the same name in an earlier directory is
	// used instead; this one is never started.
	StateShadowed State = "shadowed"
	// StateClosed: the host has been closed.
	StateClosed State = "closed"
)

// Plugin is one plugin binary and its supervised process.
type Plugin struct {
	host       *Supervisor
	name       string
	path       string
	shadowedBy string
	log        hclog.Logger

	mu     sync.Mutex
	state  State
	gen    uint64 // incremented on every successful launch
	client *plugin.Client
	cmd    *exec.Cmd
	conn   *pluginclient.Client
	health healthpb.HealthClient
	// launched is closed when the launch under way ends.
	launched chan struct{}
	info     *sdk.Info
	failures int   // failures in a row
	lastErr  error // the last failure, an *Error
	timer    *time.Timer
	starts   int // successful launches, for tests and listings
	hangs    int // failures found hung (ErrHung), for metrics
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.name }

// Path returns the plugin binary's path.
func (p *Plugin) Path() string { return p.path }

// ShadowedBy returns the path of the binary used instead of this one, or "".
func (p *Plugin) ShadowedBy() string { return p.shadowedBy }

// Status is a snapshot of a plugin's supervision.
type Status struct {
	State State
	// Info is what the plugin said about itself at its last start; nil if
	// it never started.
	Info *sdk.Info
	// Failures counts failures in a row.
	Failures int
	// Starts counts successful launches; more than one means restarts.
	Starts int
	// Hangs counts the failures that were hangs (ErrHung).
	Hangs int
	// PID is the process id while the process runs, else 0.
	PID int
	// LastError is the last failure, or nil.
	LastError error
}

// Status returns a snapshot of the plugin's state.
func (p *Plugin) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Status{State: p.state, Info: p.info, Failures: p.failures, Starts: p.starts, Hangs: p.hangs, LastError: p.lastErr}
	if p.cmd != nil && p.cmd.Process != nil && p.state == StateReady {
		s.PID = p.cmd.Process.Pid
	}
	return s
}

// Start launches the plugin if it has not been started yet, so that a
// command using one plugin does not pay for starting them all. It returns
// nil when the plugin is ready, else the typed error calls would get.
//
// A plugin being launched meanwhile (by the host's Start, or a restart) is
// waited for, up to ctx's end: discovery starts plugins in the background,
// and a request that names one should not fail because it came first.
func (p *Plugin) Start(ctx context.Context) error {
	p.mu.Lock()
	stopped := p.state == StateStopped
	if stopped {
		p.state = StateStarting
		p.launched = make(chan struct{})
	}
	launched := p.launched
	starting := p.state == StateStarting
	p.mu.Unlock()
	switch {
	case stopped:
		p.launch(ctx)
	case starting:
		select {
		case <-launched:
		case <-ctx.Done():
		}
	}
	_, _, err := p.acquire("start")
	return err
}

// launch starts the process, completes the handshake and asks for Info.
// It runs without p.mu held, with p.state StateStarting, which keeps
// everyone else off the plugin meanwhile.
func (p *Plugin) launch(ctx context.Context) {
	opts := p.host.opts
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	client, cmd, conn, health, info, err := p.start(ctx)

	p.mu.Lock()
	defer p.mu.Unlock()
	defer close(p.launched)
	if p.state != StateStarting {
		// Closed while starting.
		if client != nil {
			go hardKill(client, cmd)
		}
		return
	}
	if err != nil {
		p.log.Error("plugin failed to start", "path", p.path, "error", err)
		permanent := errors.Is(err, ErrNotFound) || errors.Is(err, ErrChecksum)
		p.failLocked(err, permanent)
		return
	}
	p.client, p.cmd, p.conn, p.health, p.info = client, cmd, conn, health, info
	p.gen++
	p.starts++
	p.state = StateReady
	p.log.Debug("plugin started", "path", p.path, "version", info.Version, "kinds", info.Kinds, "pid", cmd.Process.Pid)
	go p.watch(p.gen, client, health)
}

// exitPoll is how often watch looks for a plugin process that has exited.
const exitPoll = 100 * time.Millisecond

// watch notices when the process of generation gen exits on its own (a
// crash, a kill from outside) and treats it as a crash, so the plugin is
// restarted before the next call needs it rather than failing that call;
// and it pings the process every PingInterval, so one that stopped
// answering (SIGSTOP, a deadlock) is killed and restarted within
// PingInterval plus PingTimeout, failing the call it was in. go-plugin
// reaps the process and exposes no exit notification, only Exited, hence
// the polling; it ends with the process or when the generation is
// replaced.
func (p *Plugin) watch(gen uint64, client *plugin.Client, health healthpb.HealthClient) {
	opts := p.host.opts
	t := time.NewTicker(exitPoll)
	defer t.Stop()
	lastPing := time.Now()
	for range t.C {
		var fail *Error
		switch {
		case client.Exited():
			fail = &Error{Plugin: p.name, Op: "watch", Kind: ErrCrashed, Err: errors.New("the process exited")}
		case time.Since(lastPing) >= opts.PingInterval:
			if err := ping(health, opts.PingTimeout); err != nil && !client.Exited() {
				fail = &Error{Plugin: p.name, Op: "health check", Kind: ErrHung,
					Err: fmt.Errorf("no answer within %v: %w", opts.PingTimeout, err)}
			}
			lastPing = time.Now()
		}
		p.mu.Lock()
		if p.gen != gen || p.state != StateReady {
			p.mu.Unlock()
			return
		}
		if fail != nil {
			p.log.Error("plugin failed", "op", fail.Op, "error", fail)
			p.failLocked(fail, false)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// ping asks a plugin's gRPC health service whether it serves, waiting at
// most timeout. go-plugin's own Ping waits forever.
func ping(health healthpb.HealthClient, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: plugin.GRPCServiceName})
	if err != nil {
		return err
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health %v", resp.GetStatus())
	}
	return nil
}

// start does the work of launch. On error every resource is released.
func (p *Plugin) start(ctx context.Context) (*plugin.Client, *exec.Cmd, *pluginclient.Client, healthpb.HealthClient, *sdk.Info, error) {
	opts := p.host.opts
	fail := func(kind error, err error) (*plugin.Client, *exec.Cmd, *pluginclient.Client, healthpb.HealthClient, *sdk.Info, error) {
		return nil, nil, nil, nil, nil, &Error{Plugin: p.name, Op: "start", Kind: kind, Err: err}
	}
	if err := checkExecutable(p.path); err != nil {
		return fail(ErrNotFound, err)
	}
	if want, ok := opts.Checksums[p.name]; ok {
		got, err := fileSHA256(p.path)
		if err != nil {
			return fail(ErrNotFound, err)
		}
		if !strings.EqualFold(got, want) {
			return fail(ErrChecksum, fmt.Errorf("%s has sha256 %s, pinned %s", p.path, got, want))
		}
	}
	cmd := exec.Command(p.path)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Env = []string{sdk.LogLevelEnv + "=" + strings.ToLower(p.log.GetLevel().String())}
	// go-plugin hands over plugin output written after the handshake
	// through its stdio stream; log it rather than lose it.
	stdio := p.log.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true})
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginclient.Handshake(),
		Plugins:          pluginclient.PluginSet(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     opts.StartTimeout,
		Logger:           quietExit{p.log},
		AutoMTLS:         opts.AlwaysMTLS || usesTCP(),
		GRPCDialOptions:  pluginclient.DialOptions(),
		SyncStdout:       stdio,
		SyncStderr:       stdio,
	})
	rpc, err := client.Client()
	if err != nil {
		hardKill(client, cmd)
		return fail(ErrStart, err)
	}
	raw, err := rpc.Dispense(pluginclient.PluginSetKey)
	if err != nil {
		hardKill(client, cmd)
		return fail(ErrStart, err)
	}
	conn, ok := raw.(*pluginclient.Client)
	gc, isGRPC := rpc.(*plugin.GRPCClient)
	if !ok || !isGRPC {
		hardKill(client, cmd)
		return fail(ErrStart, fmt.Errorf("dispensed %T over %T", raw, rpc))
	}
	info, err := conn.Info(ctx)
	if err == nil && info.Name != p.name {
		err = fmt.Errorf("binary %s calls itself %q", p.path, info.Name)
	}
	if err != nil {
		hardKill(client, cmd)
		return fail(ErrStart, fmt.Errorf("info: %w", err))
	}
	return client, cmd, conn, healthpb.NewHealthClient(gc.Conn), info, nil
}

// usesTCP reports whether go-plugin talks to plugins over TCP rather than
// a Unix socket on this system.
func usesTCP() bool { return runtime.GOOS == "windows" }

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hardKill ends a plugin process at once. A hung or broken plugin may not
// answer go-plugin's graceful shutdown, which Kill tries first and would
// wait for; killing the process first makes that attempt fail fast.
func hardKill(client *plugin.Client, cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
	client.Kill()
}

// failLocked records a failure of the current process, kills it, and
// schedules a restart, or takes the plugin out of use. err is an *Error.
func (p *Plugin) failLocked(err error, permanent bool) {
	if p.client != nil {
		go hardKill(p.client, p.cmd)
	}
	p.client, p.cmd, p.conn = nil, nil, nil
	p.lastErr = err
	p.failures++
	if errors.Is(err, ErrHung) {
		p.hangs++
	}
	if permanent || p.failures >= p.host.opts.MaxFailures {
		p.state = StateDisabled
		p.log.Error("plugin taken out of use", "failures", p.failures, "error", err)
		return
	}
	wait := p.backoffLocked()
	p.state = StateRestarting
	p.log.Warn("plugin will restart", "in", wait, "failures", p.failures, "error", err)
	p.timer = time.AfterFunc(wait, p.restart)
}

// backoffLocked is MinBackoff doubled per failure in a row beyond the
// first, capped at MaxBackoff.
func (p *Plugin) backoffLocked() time.Duration {
	o := p.host.opts
	d := o.MinBackoff
	for i := 1; i < p.failures && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}

// restart relaunches a plugin waiting in StateRestarting.
func (p *Plugin) restart() {
	p.mu.Lock()
	if p.state != StateRestarting {
		p.mu.Unlock()
		return
	}
	p.state = StateStarting
	p.launched = make(chan struct{})
	p.timer = nil
	p.mu.Unlock()
	p.launch(context.Background())
}

// close stops the process, gracefully if it answers.
func (p *Plugin) close() {
	p.mu.Lock()
	if p.timer != nil {
		p.timer.Stop()
	}
	client, cmd := p.client, p.cmd
	p.client, p.cmd, p.conn = nil, nil, nil
	if p.state != StateShadowed {
		p.state = StateClosed
	}
	p.mu.Unlock()
	if client == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		client.Kill()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		hardKill(client, cmd)
		<-done
	}
}

// acquire returns the connection for a call, or the typed error to fail
// fast with.
func (p *Plugin) acquire(op string) (*pluginclient.Client, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case StateReady:
		return p.conn, p.gen, nil
	case StateRestarting, StateStarting:
		return nil, 0, &Error{Plugin: p.name, Op: op, Kind: ErrUnavailable, Err: p.lastErr}
	case StateDisabled:
		return nil, 0, &Error{Plugin: p.name, Op: op, Kind: ErrDisabled, Err: p.lastErr}
	case StateClosed:
		return nil, 0, &Error{Plugin: p.name, Op: op, Kind: ErrClosed}
	}
	return nil, 0, &Error{Plugin: p.name, Op: op, Kind: ErrUnavailable, Err: fmt.Errorf("plugin is %s", p.state)}
}

// call runs f against the plugin's connection under supervision and
// returns the generation of the process it ran against. timeout bounds the
// call (0: none beyond ctx). A failure of the plugin, as opposed to the
// caller's ctx ending or the component refusing, kills the process and
// schedules its restart. gen, when not 0, pins the call to that process
// generation (sessions live in one process).
func (p *Plugin) call(ctx context.Context, op string, gen uint64, timeout time.Duration, f func(context.Context, *pluginclient.Client) error) (uint64, error) {
	conn, cur, err := p.acquire(op)
	if err != nil {
		return 0, err
	}
	if gen != 0 && gen != cur {
		return 0, &Error{Plugin: p.name, Op: op, Kind: ErrStale}
	}
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	// callerFirst: the caller's deadline, not our timeout, bounds the call.
	callerFirst := false
	if dl, ok := ctx.Deadline(); ok {
		callerFirst = timeout <= 0 || dl.Before(time.Now().Add(timeout))
	}
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	err = f(callCtx, conn)
	// The plugin's side learns the deadline too and may end the stream a
	// moment before the local timer fires. Under the caller's deadline
	// that is the caller's doing: wait the moment for ctx to say so.
	// Under our timeout the plugin's DeadlineExceeded counts as a hang.
	if callerFirst && ctx.Err() == nil && status.Code(err) == codes.DeadlineExceeded {
		<-ctx.Done()
	}
	hung := ctx.Err() == nil && timeout > 0 &&
		(callCtx.Err() != nil || status.Code(err) == codes.DeadlineExceeded)
	cancel()
	if err == nil {
		p.mu.Lock()
		if p.gen == cur {
			p.failures = 0
		}
		p.mu.Unlock()
		return cur, nil
	}
	if ctx.Err() != nil {
		// The caller gave up; the plugin is not at fault.
		return cur, fmt.Errorf("plugin %s: %s: %w", p.name, op, err)
	}
	kind := p.classify(err, hung)
	e := &Error{Plugin: p.name, Op: op, Kind: kind, Err: err}
	if kind == ErrRefused {
		return cur, e
	}
	p.mu.Lock()
	if p.gen == cur && p.state == StateReady {
		p.log.Error("plugin failed", "op", op, "error", e)
		p.failLocked(e, false)
	}
	p.mu.Unlock()
	return cur, e
}

// classify names the failure behind err from a call.
func (p *Plugin) classify(err error, hung bool) error {
	switch {
	case hung:
		return ErrHung
	case errors.Is(err, sdk.ErrBadAnswer):
		return ErrGarbage
	}
	p.mu.Lock()
	exited := p.client != nil && p.client.Exited()
	p.mu.Unlock()
	if st, ok := status.FromError(err); exited || (ok && st.Code() == codes.Unavailable) {
		return ErrCrashed
	}
	if errors.Is(err, sdk.ErrUnknownSession) {
		// The plugin forgot a session it handed out: broken.
		return ErrGarbage
	}
	return ErrRefused
}

// Info returns what the plugin said about itself at its last start, or nil.
func (p *Plugin) Info() *sdk.Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info
}

// quietExit demotes go-plugin's report of a clean plugin exit, which every
// normal shutdown produces, from info to debug; an unclean exit is reported
// at error level and stays there.
type quietExit struct{ hclog.Logger }

// Info logs at info level, except the clean-exit report, at debug.
func (q quietExit) Info(msg string, args ...any) {
	if msg == "plugin process exited" {
		q.Logger.Debug(msg, args...)
		return
	}
	q.Logger.Info(msg, args...)
}
