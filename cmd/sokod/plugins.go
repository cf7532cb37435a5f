package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/supervisor"
)

// pluginsOutput is the "sokod plugins list --json" document.
type pluginsOutput struct {
	// Components lists every component, built-in and external.
	Components []registry.Component `json:"components"`
	// Warnings are discovery problems: missing directories, plugin files
	// that are not executable or not validly named.
	Warnings []string `json:"warnings"`
}

// openRegistry discovers the plugins in the configured directories
// (plugins.dirs, --plugin-dir) and returns the registry over them and the
// built-ins, and the function that stops the plugin processes. Plugins are
// not started here: the registry starts each when it is first resolved, and
// "plugins list" starts them all.
func openRegistry(env *Env) (*registry.Registry, *supervisor.Supervisor, func()) {
	host := supervisor.New(supervisor.Options{
		Dirs:         env.Config.Plugins.Dirs,
		StartTimeout: env.Config.Plugins.StartTimeout,
		Checksums:    env.Config.Plugins.Checksums(),
		Logger:       env.Log,
	})
	return registry.New(host, env.Log), host, host.Close
}

func pluginsCommand(env *Env) *cobra.Command {
	const summary = "List the components sokod can use: the built-in ones and those of the plugins found in\n" +
		"plugins.dirs (--plugin-dir), which are started to ask what they serve. A plugin whose name a\n" +
		"built-in holds is named plugin:NAME. Columns: name, kind, version, state, source, capabilities."
	cmd := &cobra.Command{
		Use:   "plugins list [--json]",
		Short: "List the components sokod can use, built-in and plugin.",
		Long:  summary,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef(`expected "plugins list"`)
			}
			return usagef("unknown plugins subcommand %q: want list", args[0])
		},
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: cmd.Short,
		Long:  summary,
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, host, closeHost := openRegistry(env)
			defer closeHost()
			if err := host.Start(cmd.Context()); err != nil {
				return err
			}
			out := pluginsOutput{Components: reg.List(), Warnings: []string{}}
			for _, w := range host.Warnings() {
				out.Warnings = append(out.Warnings, w.Error())
			}
			if asJSON {
				return writeJSON(env.Stdout, out)
			}
			return printPlugins(env.Stdout, out)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON: {components: [{name, kind, version, source, summary, capabilities, state, error}], warnings}")
	cmd.AddCommand(list)
	return cmd
}

func printPlugins(w io.Writer, o pluginsOutput) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tVERSION\tSTATE\tSOURCE\tCAPABILITIES")
	for _, c := range o.Components {
		caps := make([]string, len(c.Capabilities))
		for i, cp := range c.Capabilities {
			caps[i] = string(cp)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, dash(string(c.Kind)), dash(c.Version), c.State, c.Source, dash(strings.Join(caps, ",")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	for _, c := range o.Components {
		if c.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", c.Name, c.Error)
		}
	}
	for _, warn := range o.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// dash stands in for an empty column.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
