// Command sokod is the sokod Sokoban solver: a daemon and its command-line
// tools. Run "sokod help" for the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/pflag"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/logging"
)

// Env is what every subcommand is given: its streams, the loaded
// configuration, a logger and a clock. Nothing is global.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Config *config.Config
	Log    hclog.Logger
	Now    func() time.Time
}

// runFunc runs a subcommand on its positional arguments once flags are
// parsed and the configuration is loaded.
type runFunc func(ctx context.Context, env *Env, args []string) error

// command is one subcommand. setup defines the command's own flags on fs
// and returns the function that runs it; the flags it binds are parsed by
// the time that function is called.
type command struct {
	name    string
	args    string // synopsis after the name, for help
	summary string
	setup   func(fs *pflag.FlagSet) runFunc
}

// commands lists the subcommands; each lives in a file of its own name.
func commands() []command {
	return []command{
		levelsCommand(),
		verifyCommand(),
		solveCommand(),
		benchCommand(),
		configCommand(),
		versionCommand(),
		pluginsCommand(),
		serveCommand(),
		statusCommand(),
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one sokod invocation and returns its exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			args = []string{args[1], "--help"}
		} else {
			printUsage(stdout, cmds)
			if len(args) == 0 {
				return exitUsage
			}
			return exitOK
		}
	}
	var cmd *command
	for i := range cmds {
		if cmds[i].name == args[0] {
			cmd = &cmds[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "sokod: unknown command %q\n\n", args[0])
		printUsage(stderr, cmds)
		return exitUsage
	}

	fs := pflag.NewFlagSet("sokod "+cmd.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	runCmd := cmd.setup(fs)
	config.RegisterFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printCommandUsage(stdout, cmd, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "sokod %s: %v\n", cmd.name, err)
		printCommandUsage(stderr, cmd, fs)
		return exitUsage
	}
	cfg, err := config.Load(config.LoadOptions{Flags: fs})
	if err != nil {
		fmt.Fprintf(stderr, "sokod %s: configuration: %v\n", cmd.name, err)
		return exitUsage
	}
	log, err := logging.New(stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		fmt.Fprintf(stderr, "sokod %s: %v\n", cmd.name, err)
		return exitUsage
	}
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Config: cfg, Log: log, Now: time.Now}
	err = runCmd(ctx, env, fs.Args())
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	var usage *usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "sokod %s: %v\n", cmd.name, err)
		printCommandUsage(stderr, cmd, fs)
	case errors.Is(err, errSilent):
		// The command has already said everything on stdout.
	default:
		fmt.Fprintf(stderr, "sokod %s: %v\n", cmd.name, err)
	}
	return code
}

func printUsage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "sokod: a Sokoban solver daemon and its tools.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: sokod COMMAND [ARGS] [FLAGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	sorted := append([]command(nil), cmds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "sokod help COMMAND" for a command's arguments and flags.`)
	fmt.Fprintln(w, "Exit codes: 0 success, 1 internal error, 2 usage, 3 bad input, 4 invalid solution,")
	fmt.Fprintln(w, "5 unsolvable, 6 gave up, 130 interrupted.")
}

func printCommandUsage(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: sokod %s %s\n\n%s\n\nFlags:\n", c.name, c.args, c.summary)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// argsBetween checks the number of positional arguments.
func argsBetween(args []string, lo, hi int) error {
	switch {
	case len(args) < lo:
		return usagef("expected at least %d argument(s), got %d", lo, len(args))
	case len(args) > hi:
		return usagef("unexpected argument(s): %s", strings.Join(args[hi:], " "))
	}
	return nil
}
