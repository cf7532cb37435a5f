package main

import (
	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/planners"
)

// Shell completion: cobra's completion command writes the scripts (sokod
// completion bash|zsh|fish|powershell); these functions give the values it
// offers for arguments and flags.

// levelExtensions are the file extensions offered for a level FILE.
func levelExtensions() []string { return []string{"xsb", "sok", "txt"} }

// levelFiles completes the first argument with level files, and nothing
// after it.
func levelFiles(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return levelExtensions(), cobra.ShellCompDirectiveFilterFileExt
}

// everyLevelFile completes every argument with level files.
func everyLevelFile(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return levelExtensions(), cobra.ShellCompDirectiveFilterFileExt
}

// values completes a flag with fixed values.
func values(vs ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(vs, cobra.ShellCompDirectiveNoFileComp)
}

// extensions completes a flag with files of these extensions.
func extensions(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completeSearchFlags registers the completions of the search flags that
// solve and bench share. The heuristics offered are the built-in ones:
// completing plugin names would start the plugins.
func completeSearchFlags(cmd *cobra.Command) {
	complete(cmd, "objective", values("any", "pushes"))
	complete(cmd, "strategy", values("best-first", "greedy", "packing", "ida"))
	complete(cmd, "heuristic", values(heuristics.Names()...))
}

// completeConfigFlags registers the completions of the configuration flags.
func completeConfigFlags(root *cobra.Command) {
	complete(root, "config", extensions("yaml", "yml", "toml", "json"))
	complete(root, "log-level", values("trace", "debug", "info", "warn", "error", "off"))
	complete(root, "log-format", values("text", "json"))
	complete(root, "planners", values(append(planners.Names(), "none")...))
	complete(root, "plugin-dir", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
}

// complete registers f for the flag; a flag that does not exist is a
// programming error.
func complete(cmd *cobra.Command, flag string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(flag, f); err != nil {
		panic("completion of --" + flag + ": " + err.Error())
	}
}
