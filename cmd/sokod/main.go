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
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/logging"
)

// Env is what every subcommand is given: its streams, the loaded
// configuration, a logger and a clock. Nothing is global. Config and Log
// are set once the flags are parsed, before a subcommand's RunE runs.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Config *config.Config
	Log    hclog.Logger
	Now    func() time.Time
	// LimitMemory, when set, sets the process's heap limit (see
	// heapLimit); tests, which share a process, leave it nil.
	LimitMemory func(budgets int64)
	// Getenv reads the environment beyond the configuration (NO_COLOR).
	Getenv func(string) string
}

// subcommands lists the subcommands. Each lives in a file of its own name,
// as a function that builds its *cobra.Command over env: adding a
// subcommand is that file and one line here.
func subcommands(env *Env) []*cobra.Command {
	return []*cobra.Command{
		levelsCommand(env),
		verifyCommand(env),
		solveCommand(env),
		benchCommand(env),
		configCommand(env),
		versionCommand(env),
		pluginsCommand(env),
		serveCommand(env),
		statusCommand(env),
		batchCommand(env),
		workerCommand(env),
		storeCommand(env),
		renderCommand(env),
	}
}

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var note io.Writer
	if isTerminal(os.Stderr) {
		note = os.Stderr
	}
	ctx, stop := watchInterrupts(context.Background(), sigs, note, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, heapLimit())
	stop()
	os.Exit(code)
}

// run executes one sokod invocation and returns its exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, limitMemory func(int64)) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Now: time.Now, LimitMemory: limitMemory, Getenv: os.Getenv}
	root := newRootCommand(env)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	var usage *usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		printUsage(stderr, cmd)
	case errors.Is(err, errSilent):
		// The command has already said everything on stdout.
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
	}
	return code
}

// newRootCommand builds the sokod command and its subcommands over env.
// The configuration flags are the root's persistent flags, so every
// command takes them; the configuration is loaded from them (and the file
// and environment beneath) before a subcommand runs.
func newRootCommand(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "sokod",
		Short: "sokod: a Sokoban solver daemon and its tools.",
		// A root with arguments left is an unknown command; cobra's own
		// check would return an untyped error, not a usage error.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			printUsage(env.Stdout, cmd)
			return withCode(exitUsage, errSilent)
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if !needsConfig(cmd) {
				return nil
			}
			cfg, err := config.Load(config.LoadOptions{Flags: cmd.Flags()})
			if err != nil {
				return withCode(exitUsage, fmt.Errorf("configuration: %w", err))
			}
			log, err := logging.New(env.Stderr, cfg.Log.Level, cfg.Log.Format)
			if err != nil {
				return withCode(exitUsage, err)
			}
			env.Config, env.Log = cfg, log
			return nil
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.PersistentFlags().SortFlags = false
	config.RegisterFlags(root.PersistentFlags())
	completeConfigFlags(root)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.SetUsageFunc(func(cmd *cobra.Command) error {
		printUsage(cmd.OutOrStderr(), cmd)
		return nil
	})
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		printUsage(cmd.OutOrStdout(), cmd)
	})
	for _, c := range subcommands(env) {
		c.Flags().SortFlags = false
		root.AddCommand(c)
	}
	return root
}

// needsConfig reports whether cmd runs on the configuration: help and the
// shell-completion commands do not, so a bad configuration never stops them.
func needsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return false
		}
	}
	return true
}

// printUsage prints cmd's usage: its synopsis and description, its
// subcommands, its own flags and the configuration flags.
func printUsage(w io.Writer, cmd *cobra.Command) {
	if !cmd.HasParent() {
		fmt.Fprintln(w, cmd.Short)
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Usage: sokod COMMAND [ARGS] [FLAGS]")
	} else {
		_, synopsis, _ := strings.Cut(cmd.Use, " ")
		fmt.Fprintf(w, "Usage: %s %s\n\n%s\n", cmd.CommandPath(), synopsis, description(cmd))
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Commands:")
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() || c.Name() == "help" {
				fmt.Fprintf(w, "  %-10s %s\n", c.Name(), c.Short)
			}
		}
	}
	if cmd.HasAvailableLocalFlags() && cmd.HasParent() {
		fmt.Fprintf(w, "\nFlags:\n%s", cmd.LocalFlags().FlagUsages())
	}
	if !cmd.HasParent() {
		fmt.Fprintf(w, "\nConfiguration flags, taken by every command:\n%s", cmd.PersistentFlags().FlagUsages())
		fmt.Fprintln(w)
		fmt.Fprintln(w, `Run "sokod help COMMAND" for a command's arguments and flags.`)
		fmt.Fprintln(w, "Exit codes: 0 success, 1 internal error, 2 usage, 3 bad input, 4 invalid solution,")
		fmt.Fprintln(w, "5 unsolvable, 6 gave up, 7 NATS unreachable, 130 interrupted.")
	} else if cmd.HasAvailableInheritedFlags() {
		// The root's set, not InheritedFlags, which cobra sorts by name.
		fmt.Fprintf(w, "\nConfiguration flags:\n%s", cmd.Root().PersistentFlags().FlagUsages())
	}
}

// description is a command's Long text, or its Short one without Long.
func description(cmd *cobra.Command) string {
	if cmd.Long != "" {
		return cmd.Long
	}
	return cmd.Short
}

// argsBetween returns a check that a command has from lo to hi positional
// arguments; its errors are usage errors.
func argsBetween(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return checkArgs(args, lo, hi)
	}
}

// checkArgs checks the number of positional arguments.
func checkArgs(args []string, lo, hi int) error {
	switch {
	case len(args) < lo:
		return usagef("expected at least %d argument(s), got %d", lo, len(args))
	case len(args) > hi:
		return usagef("unexpected argument(s): %s", strings.Join(args[hi:], " "))
	}
	return nil
}
