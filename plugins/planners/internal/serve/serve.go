// Package serve is the main of the plugins that serve sokod's built-in
// planners as external plugin processes: the same planner, driven through
// the plugin protocol, with the host's primitives reached through the
// go-plugin broker.
package serve

import (
	"os"

	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/pluginserver"
)

// Info describes the plugin serving spec.
func Info(spec planners.Spec, version string) sdk.Info {
	return sdk.Info{Name: spec.Name, Version: version, Summary: spec.Summary + " [built-in served as a plugin]",
		Kinds: []sdk.Kind{sdk.KindPlanner}, Capabilities: []sdk.Capability{sdk.CapPlannerHost}}
}

// Planner serves the built-in planner name; it returns only when the
// plugin process ends.
func Planner(name, version string) {
	logger := sdk.NewLogger(name)
	spec, err := planners.Lookup(name)
	if err != nil {
		logger.Error("no such built-in", "error", err)
		os.Exit(1)
	}
	pluginserver.Serve(&sdk.Plugin{Info: Info(spec, version), Planner: spec.New(), Logger: logger})
}
