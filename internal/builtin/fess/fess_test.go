package fess_test

import (
	"testing"

	"github.com/sokod/sokod/internal/builtin/fess"
	"github.com/sokod/sokod/internal/builtin/plannertest"
)

func TestPlanner(t *testing.T) { plannertest.Check(t, fess.New) }
