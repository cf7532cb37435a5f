package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"
)

func configCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config show [--json]",
		Short: "Show the effective configuration (defaults < file < SOKOD_* environment < flags).",
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef(`expected "config show"`)
		},
	}
	var asJSON bool
	show := &cobra.Command{
		Use:   "show [--json]",
		Short: cmd.Short,
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			m := env.Config.Map()
			if asJSON {
				return writeJSON(env.Stdout, m)
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(env.Stdout, "%s = %v\n", k, m[k])
			}
			return nil
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON: an object keyed by the dotted config keys")
	cmd.AddCommand(show)
	return cmd
}
