package macro

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// BenchmarkGenerate measures move generation on the start positions of
// the first 30 XSokoban levels. Needs SOKOD_LEVELS.
func BenchmarkGenerate(b *testing.B) {
	dir := os.Getenv("SOKOD_LEVELS")
	if dir == "" {
		b.Skip("SOKOD_LEVELS is not set")
	}
	src, err := os.ReadFile(filepath.Join(dir, "xsokoban90.xsb"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		b.Fatal(err)
	}
	type setup struct {
		g   *Gen
		pos *Pos
	}
	var all []setup
	for _, l := range c.Levels[:30] {
		bd, err := board.Analyze(l)
		if err != nil {
			b.Fatal(err)
		}
		g := NewGen(bd)
		pos := NewPos(bd)
		pos.Set(bd.StartBoxes, bd.StartPlayer)
		pos.Player = g.Flood(pos, bd.StartPlayer)
		all = append(all, setup{g, pos})
	}
	b.ReportAllocs()
	b.ResetTimer()
	// CPU time as well as wall time: the benchmark machines are shared.
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &before)
	for i := range b.N {
		s := all[i%len(all)]
		s.g.Generate(s.pos, nil)
	}
	syscall.Getrusage(syscall.RUSAGE_THREAD, &after)
	cpu := time.Duration(after.Utime.Nano() - before.Utime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
