package packing_test

import (
	"testing"

	"github.com/sokod/sokod/internal/builtin/packing"
	"github.com/sokod/sokod/internal/builtin/plannertest"
)

func TestPlanner(t *testing.T) { plannertest.Check(t, packing.New) }
