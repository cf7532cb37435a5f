package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func versionCommand(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the sokod version.",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return writeJSON(env.Stdout, map[string]string{
					"version": version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
				})
			}
			_, err := fmt.Fprintf(env.Stdout, "sokod %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {version, go, os, arch}")
	return cmd
}
