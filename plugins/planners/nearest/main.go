// Command sokod-plugin-nearest is the plugin guide's example planner: a
// greedy best-first search over macro moves (one box pushed any distance),
// guided by the sum of each box's push distance to its nearest goal,
// written against the public SDK only, as a planner from outside this
// repository would be. Build it under its plugin name and put it in a
// directory of plugins.dirs:
//
//	go build -o DIR/sokod-plugin-nearest ./plugins/planners/nearest
//
// and ask for it with --planners plugin:nearest. It is far weaker than the
// built-in planners: it shows the toolkit (sdk/macro) and the host's
// verification, not a strategy.
package main

import (
	"context"
	"fmt"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sdk/pluginserver"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	pluginserver.Serve(&sdk.Plugin{
		Info:    sdk.Info{Name: "nearest", Version: version},
		Planner: planner{},
	})
}

// planner is the sdk.Planner the plugin serves.
type planner struct{}

// Plan searches the level's macro moves, nearest-goal sum first, and hands
// the solution it finds to the host to verify.
func (planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	b, err := macro.Board(ctx, req) // the board analysed in this process, the host's squares
	if err != nil {
		return nil, fmt.Errorf("nearest: %w", err)
	}
	if b.Impossible != "" {
		return &sdk.PlanResult{Status: sdk.PlanUnsolvable, Reason: b.Impossible}, nil
	}
	run := macro.NewRun(ctx, req, progress) // clock, budget and progress reports
	gen, pos := macro.NewGen(b), macro.NewPos(b)
	store := macro.NewStore(len(b.StartBoxes), macro.StoreLimit(req, len(b.StartBoxes), 0))
	var open macro.Heap
	seq := uint32(0)
	push := func(id int32) {
		// Ties go to the newest position, which keeps the search deep.
		seq++
		open.Push(macro.Item{Pri: uint64(nearestSum(b, pos.Boxes))<<32 | uint64(^seq), ID: id})
	}

	pos.Set(b.StartBoxes, b.StartPlayer)
	pos.Player = gen.Flood(pos, b.StartPlayer) // the player's region, by its smallest square
	root := store.Add(-1, nil, macro.Hash(b, pos.Boxes, pos.Player), pos.Boxes, pos.Player)
	if macro.OnGoals(b, pos.Boxes) == len(b.Goals) {
		return macro.Finish(ctx, gen, store, root, host)
	}
	push(root)
	for open.Len() > 0 {
		if stop, reason := run.Tick(); stop {
			return macro.GaveUp(run, reason), nil
		}
		id := open.Pop().ID
		store.Load(id, pos)
		if !gen.Matchable(pos) || gen.CorralDeadlock(pos) {
			continue
		}
		run.Best = max(run.Best, macro.OnGoals(b, pos.Boxes))
		player := pos.Player
		moves := gen.Generate(pos, nil) // dead squares and frozen boxes are left out already
		for i := range moves {
			m := &moves[i]
			if store.Find(m.Hash) >= 0 {
				continue
			}
			pos.Apply(m)
			child := store.Add(id, m, m.Hash, pos.Boxes, m.Norm)
			if child < 0 {
				return macro.GaveUp(run, "memory budget spent"), nil
			}
			if macro.OnGoals(b, pos.Boxes) == len(b.Goals) {
				// Finish rebuilds the LURD and has the host replay it.
				return macro.Finish(ctx, gen, store, child, host)
			}
			push(child)
			pos.Undo(m, player)
		}
	}
	return macro.GaveUp(run, "search space exhausted"), nil
}

// nearestSum is the sum over the boxes of the push distance from each to
// its nearest goal (board.Dist), goals shared: a guide, not a bound.
func nearestSum(b *board.Board, boxes []uint16) int {
	sum := 0
	for _, sq := range boxes {
		best := int(board.Inf)
		for g := range b.Goals {
			best = min(best, int(b.Dist[int(sq)*len(b.Goals)+g]))
		}
		sum += best
	}
	return sum
}
