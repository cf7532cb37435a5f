package packing_test

import (
	"testing"

	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/internal/planners/plannertest"
)

func TestPlanner(t *testing.T) { plannertest.Check(t, packing.New) }
