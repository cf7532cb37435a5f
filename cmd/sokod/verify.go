package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/sokoban"
)

// verifyOutput is the "sokod verify --json" document. The metrics are
// those of the legal steps, all of them when the solution is legal.
type verifyOutput struct {
	File  string `json:"file"`
	Level int    `json:"level"`
	Title string `json:"title"`
	// Valid is true when every step is legal and the level ends solved.
	Valid bool `json:"valid"`
	// Legal is true when every step is legal.
	Legal bool `json:"legal"`
	sokoban.Metrics
	// Error describes the first illegal step; absent when Legal.
	Error *stepErrorJSON `json:"error,omitempty"`
}

type stepErrorJSON struct {
	Step    int    `json:"step"` // 1-based index of the illegal step
	Move    string `json:"move"` // its LURD letter
	Kind    string `json:"kind"` // into wall, box blocked, push written as move, move written as push
	Message string `json:"message"`
}

func verifyCommand(env *Env) *cobra.Command {
	var (
		level   int
		solFile string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "verify FILE [--level N] SOLUTION|--solution-file F [--json]",
		Short: "Replay a LURD solution on a level and print its metrics, or the first illegal step.",
		RunE: func(cmd *cobra.Command, args []string) error {
			want := 2
			if solFile != "" {
				want = 1
			}
			if err := checkArgs(args, want, want); err != nil {
				return err
			}
			if solFile == "-" && args[0] == "-" {
				return usagef("the level and the solution cannot both come from standard input")
			}
			l, err := readLevel(env, args[0], level)
			if err != nil {
				return err
			}
			text := ""
			if solFile != "" {
				b, err := readInput(env, solFile)
				if err != nil {
					return err
				}
				text = string(b)
			} else {
				text = args[1]
			}
			sol, err := sokoban.ParseSolution(text)
			if err != nil {
				return withCode(exitBadInput, err)
			}
			m, err := sokoban.Replay(l, sol)
			out := verifyOutput{File: args[0], Level: level, Title: l.Title, Metrics: m, Legal: err == nil}
			var se *sokoban.StepError
			if errors.As(err, &se) {
				out.Error = &stepErrorJSON{Step: se.Index, Move: string(se.Step.Byte()), Kind: se.Kind.String(), Message: se.Error()}
			} else if err != nil {
				return err
			}
			out.Valid = out.Legal && m.Solved
			if asJSON {
				if err := writeJSON(env.Stdout, out); err != nil {
					return err
				}
			} else {
				printVerify(env, out)
			}
			if !out.Valid {
				return withCode(exitInvalid, errSilent)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&level, "level", 1, "level `number` within FILE, from 1")
	fs.StringVar(&solFile, "solution-file", "", "read the solution from `file` (- for standard input) instead of an argument")
	fs.BoolVar(&asJSON, "json", false, "print JSON: {file, level, title, valid, legal, moves, pushes, box_lines, box_changes, pushing_sessions, player_lines, solved, error}")
	return cmd
}

func printVerify(env *Env, o verifyOutput) {
	name := fmt.Sprintf("level %d", o.Level)
	if o.Title != "" {
		name += fmt.Sprintf(" (%s)", o.Title)
	}
	switch {
	case o.Error != nil:
		fmt.Fprintf(env.Stdout, "invalid: %s: %s\n", name, o.Error.Message)
	case !o.Solved:
		fmt.Fprintf(env.Stdout, "invalid: %s: every step is legal but the level is not solved at the end\n", name)
	default:
		fmt.Fprintf(env.Stdout, "valid: the solution solves %s\n", name)
	}
	fmt.Fprintf(env.Stdout, "moves %d  pushes %d  box lines %d  box changes %d  pushing sessions %d  player lines %d\n",
		o.Moves, o.Pushes, o.BoxLines, o.BoxChanges, o.PushingSessions, o.PlayerLines)
}
