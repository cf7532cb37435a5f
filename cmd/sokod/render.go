package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/internal/render"
	"github.com/sokod/sokod/sokoban"
)

// renderFlags are render's own flags.
type renderFlags struct {
	level                  int
	out, format            string
	solution, solutionFile string
	solve                  bool
	objective              string
	tile, step, hold       int
}

func renderCommand(env *Env) *cobra.Command {
	var f renderFlags
	cmd := &cobra.Command{
		Use:   "render FILE [--level N] [--out FILE] [--format png|svg|gif] [--solution LURD | --solution-file F | --solve] [--tile PX]",
		Short: "Draw a level as PNG or SVG, or its solution as an animated GIF or SVG.",
		Long: "Draw a level, in the web app's look: a picture of its start as PNG or SVG, or, given a\n" +
			"solution (--solution, --solution-file, or --solve to solve it first with --time and the\n" +
			"other budget flags), an animation of the solution as a looping GIF or an SVG animation\n" +
			"(SMIL, which browsers play). The format is --format, else --out's extension, else png\n" +
			"for a picture and gif for an animation. --out - (the default) writes standard output,\n" +
			"which must not be a terminal. Exit codes: 0 written, 3 bad input, 4 invalid solution,\n" +
			"5 unsolvable and 6 gave up (--solve).",
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRender(cmd, env, args[0], f)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&f.level, "level", 1, "level `number` within FILE, from 1")
	fs.StringVar(&f.out, "out", "-", "output `file`; - for standard output")
	fs.StringVar(&f.format, "format", "", "png or svg (a picture, or with a solution svg animates), or gif (an animation); default from --out's extension")
	fs.StringVar(&f.solution, "solution", "", "animate this LURD `solution`")
	fs.StringVar(&f.solutionFile, "solution-file", "", "animate the LURD solution in this `file`")
	fs.BoolVar(&f.solve, "solve", false, "solve the level (budget from --time, --memory, --nodes) and animate the solution")
	fs.StringVar(&f.objective, "objective", "any", "with --solve: any or pushes")
	fs.IntVar(&f.tile, "tile", render.DefaultTheme().Tile, "square size in `pixels`")
	fs.IntVar(&f.step, "step", render.DefaultAnimation.Step, "animation: time per step in `hundredths` of a second")
	fs.IntVar(&f.hold, "hold", render.DefaultAnimation.Hold, "animation: time the solved position stays, in `hundredths` of a second")
	return cmd
}

// runRender draws level f.level of path as f asks.
func runRender(cmd *cobra.Command, env *Env, path string, f renderFlags) error {
	sources := 0
	for _, set := range []bool{f.solution != "", f.solutionFile != "", f.solve} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return usagef("give one of --solution, --solution-file and --solve")
	}
	animate := sources == 1
	format := strings.ToLower(f.format)
	if format == "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(f.out)), ".")
	}
	switch {
	case format == "" || f.out == "-" && f.format == "":
		format = "png"
		if animate {
			format = "gif"
		}
	case format != "png" && format != "svg" && format != "gif":
		return usagef("--format %s: want png, svg or gif", format)
	case format == "png" && animate:
		return usagef("a PNG cannot animate a solution: use --format gif or svg")
	case format == "gif" && !animate:
		return usagef("a GIF animates a solution: give --solution, --solution-file or --solve, or use png or svg")
	}
	theme := render.DefaultTheme()
	theme.Tile = f.tile
	anim := render.Animation{Step: f.step, Hold: f.hold}
	if f.out == "-" && isTerminal(env.Stdout) {
		return usagef("will not write a %s picture to a terminal: give --out FILE or redirect", format)
	}

	l, err := readLevel(env, path, f.level)
	if err != nil {
		return err
	}
	var sol sokoban.Solution
	switch {
	case f.solve:
		if sol, err = solveForRender(cmd, env, l, f.objective); err != nil {
			return err
		}
	case f.solution != "" || f.solutionFile != "":
		text := f.solution
		if f.solutionFile != "" {
			b, err := readInput(env, f.solutionFile)
			if err != nil {
				return err
			}
			text = string(b)
		}
		if sol, err = sokoban.ParseSolution(text); err != nil {
			return withCode(exitBadInput, err)
		}
	}

	b, start := render.NewBoard(l)
	var buf bytes.Buffer
	frames := 1
	switch {
	case !animate && format == "png":
		err = theme.PNG(&buf, b, start)
	case !animate:
		err = theme.SVG(&buf, b, start)
	default:
		positions, perr := render.Positions(l, sol)
		if perr != nil {
			return withCode(exitInvalid, perr)
		}
		if m, _ := sokoban.Replay(l, sol); !m.Solved {
			return withCode(exitInvalid, fmt.Errorf("the solution's %d steps are legal but leave the level unsolved", len(sol)))
		}
		frames = len(positions)
		if format == "gif" {
			err = theme.GIF(&buf, b, positions, anim)
		} else {
			err = theme.SVGAnimation(&buf, b, positions, anim)
		}
	}
	if err != nil {
		return withCode(exitUsage, err)
	}
	if f.out == "-" {
		_, err = env.Stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(f.out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", f.out, err)
	}
	_, err = fmt.Fprintf(env.Stdout, "%s: %s, %d x %d pixels, %d frame(s), %d bytes\n", f.out, format,
		b.Width*theme.Tile, b.Height*theme.Tile, frames, buf.Len())
	return err
}

// solveForRender solves l with the configured budget; a level not solved
// ends the command with solve's exit code.
func solveForRender(cmd *cobra.Command, env *Env, l *sokoban.Level, objective string) (sokoban.Solution, error) {
	ctx := cmd.Context()
	reg, _, closeRegistry := openRegistry(env)
	defer closeRegistry()
	settings, err := settingsFromFlags(ctx, env, reg, objective, "best-first", heuristics.Default, nil)
	if err != nil {
		return nil, err
	}
	r, err := solveLevel(ctx, env, l, settings, nil)
	if err != nil {
		return nil, err
	}
	switch r.Status {
	case engine.Solved:
		return r.Solution, nil
	case engine.Unsolvable:
		return nil, withCode(exitUnsolvable, fmt.Errorf("the level is unsolvable: %s", r.Reason))
	}
	if ctx.Err() != nil {
		return nil, withCode(exitInterrupted, fmt.Errorf("interrupted"))
	}
	return nil, withCode(exitGaveUp, fmt.Errorf("no solution: %s", r.Reason))
}
