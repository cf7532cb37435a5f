package engine

// Restarts of the packing searches.
//
// A packing search is greedy: early on it commits to a subtree whose
// positions all key about as well as the way to the solution, and when
// that subtree is dead (a deadlock no test sees, many pushes deep) it
// spends the rest of its budget there. Which subtree it commits to turns
// on ties and near-ties among the keys. So the searches' turns (interleave.go)
// start a packing search again from scratch, in the same slot, after a
// number of expansions that follows the Luby sequence times restartUnit;
// each new run adds to every key a pseudo-random term below packNoise,
// drawn from the position's boxes and the run's seed. The runs then break
// the near-ties differently, and one of them avoids the trap where the
// unperturbed search falls in. The Luby sequence (1 1 2 1 1 2 4 1 ...) keeps
// most runs short, for the levels a lucky run solves at once, and lets a
// few grow without bound, for those that need a long run; its total is
// within a logarithmic factor of the best fixed run length, whatever that
// is for the level. The first run is unperturbed.
//
// The learned deadlocks carry over from run to run, as they do between the
// searches of the turns; the transposition table starts empty. Restarts
// cost completeness nothing: the runs grow without bound, and a run that
// exhausts its space proves what it proves.

const (
	// restartUnit is the Luby sequence's unit, in expansions.
	restartUnit = 32 << 10
	// packNoise bounds the term a restarted run adds to every key: half a
	// goal's worth (packGoalWeight), so that the perturbed keys still fill
	// the plan's goals in order, and several pushes' worth, so that they
	// reorder the near-ties.
	packNoise = 16
)

// keyNoise returns a position's term below packNoise, drawn from its
// boxes' hash and a run's seed.
func keyNoise(boxHash, seed uint64) int {
	x := (boxHash ^ seed) * 0x9E3779B97F4A7C15
	return int(x >> 60) // packNoise is 16: the top four bits
}

// luby returns the i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1
// 1 2 1 1 2 4 8 ...
func luby(i int64) int64 {
	for k := uint(1); ; k++ {
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		if i < 1<<k-1 {
			return luby(i - (1<<(k-1) - 1))
		}
	}
}

// runSeed returns the seed of a packing search's run (from 0, which is
// unperturbed).
func runSeed(run int64) uint64 {
	if run == 0 {
		return 0
	}
	return uint64(run) * 0xD1B54A32D192ED03
}
