package main

import (
	"os"
	"runtime/debug"
)

// MemorySlack is what a sokod process takes beyond the memory budgets of
// its solves: the Go runtime, the program's code, the garbage collector's
// margin and small allocations. Peak resident memory stays within the
// budgets plus MemorySlack (the README says so).
const MemorySlack = 32 << 20

// heapLimit returns the Env.LimitMemory of a real process: it makes the Go
// runtime collect garbage as the heap nears the solves' budgets, rather
// than when it has doubled, unless GOMEMLIMIT says otherwise.
func heapLimit() func(int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	return func(budgets int64) { debug.SetMemoryLimit(budgets) }
}

// limitMemory applies budgets, the summed memory budgets of the solves the
// command may run at once, as the heap's limit (see heapLimit).
func (env *Env) limitMemory(budgets int64) {
	if env.LimitMemory != nil && budgets > 0 {
		env.LimitMemory(budgets)
	}
}
