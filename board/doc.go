// Package board analyses a Sokoban level once, for every part of sokod that
// reasons about it: the exhaustive search (internal/engine), the planners,
// and plugin authors who want the same tables.
//
// A Board numbers the interior floor squares and holds what follows from
// the walls and goals alone: neighbours, lone-box push distances by the
// player's region around the box, dead squares, tunnel squares, rooms,
// goal areas with their packing order, and Zobrist keys. It is computed by
// Analyze and read-only afterwards, so any number of searches may share
// it. The package does no I/O and keeps no state; the only sokod package it
// imports is sokoban.
package board
