package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/pflag"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func versionCommand() command {
	return command{
		name:    "version",
		args:    "[--json]",
		summary: "Print the sokod version.",
		setup: func(fs *pflag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON: {version, go, os, arch}")
			return func(ctx context.Context, env *Env, args []string) error {
				if err := argsBetween(args, 0, 0); err != nil {
					return err
				}
				if *asJSON {
					return writeJSON(env.Stdout, map[string]string{
						"version": version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
					})
				}
				_, err := fmt.Fprintf(env.Stdout, "sokod %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return err
			}
		},
	}
}
