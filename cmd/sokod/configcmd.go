package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/pflag"
)

func configCommand() command {
	return command{
		name:    "config",
		args:    "show [--json]",
		summary: "Show the effective configuration (defaults < file < SOKOD_* environment < flags).",
		setup: func(fs *pflag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON: an object keyed by the dotted config keys")
			return func(ctx context.Context, env *Env, args []string) error {
				if len(args) != 1 || args[0] != "show" {
					return usagef(`expected "config show"`)
				}
				m := env.Config.Map()
				if *asJSON {
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
			}
		},
	}
}
