// Package engine is sokod's core Sokoban search: search state,
// transposition table, open list, deadlock pruning, lower-bound evaluation,
// the search strategies and solution building, over a board analysed by
// package board.
//
// The engine is a pure, deterministic library. It does no I/O, keeps no
// global state and starts no goroutines; the clock, the budget and the
// cancellation context are passed in by the caller. The only sokod packages
// it imports are the public model packages sokoban and board.
//
// A solve is two steps: board.Analyze computes the per-level tables once
// (Board), and Solve searches under a budget with a compiled Heuristic (see
// internal/heuristics for the named built-in ones).
package engine

import "github.com/sokod/sokod/board"

// Board is the analysis of one level that the search runs on; package
// board computes it, and planners read the same tables.
type Board = board.Board

// Inf is the distance and cost meaning "unreachable".
const Inf = board.Inf

// Regions is the number of region labels around a square (Board.Region).
const Regions = board.Regions
