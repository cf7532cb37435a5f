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
	// Snapshot is the title of the stored solution checked, when verify
	// checks the solutions stored in FILE.
	Snapshot string `json:"snapshot,omitempty"`
	// Valid is true when every step is legal and the level ends solved.
	Valid bool `json:"valid"`
	// Legal is true when every step is legal.
	Legal bool `json:"legal"`
	sokoban.Metrics
	// Error describes the first illegal step, or a stored solution's
	// malformed text; absent when Legal.
	Error *stepErrorJSON `json:"error,omitempty"`
}

type stepErrorJSON struct {
	Step    int    `json:"step"` // 1-based index of the illegal step; 0 for malformed text
	Move    string `json:"move"` // its LURD letter
	Kind    string `json:"kind"` // into wall, box blocked, push written as move, move written as push; malformed
	Message string `json:"message"`
}

// storedOutput is the "sokod verify FILE --json" document when no solution
// is given: every solution stored in FILE, checked.
type storedOutput struct {
	File      string         `json:"file"`
	Solutions []verifyOutput `json:"solutions"`
	Valid     int            `json:"valid"`
	Invalid   int            `json:"invalid"`
}

func verifyCommand(env *Env) *cobra.Command {
	var (
		level   int
		solFile string
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:               "verify FILE [--level N] [SOLUTION|--solution-file F] [--json]",
		Short:             "Replay a LURD solution on a level and print its metrics, or the first illegal step.",
		ValidArgsFunction: levelFiles,
		Long: "Replay a LURD solution on a level and print its metrics, or the first illegal step.\n" +
			"Without SOLUTION or --solution-file, check every solution stored in FILE (a SOK\n" +
			"collection with \"Solution\" blocks), of level N only with --level.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if solFile == "" && len(args) == 1 {
				only := 0
				if cmd.Flags().Changed("level") {
					only = level
				}
				return verifyStored(env, args[0], only, asJSON)
			}
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
			out, err := check(l, text)
			if err != nil {
				return withCode(exitBadInput, err)
			}
			out.File, out.Level = args[0], level
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
	fs.BoolVar(&asJSON, "json", false, "print JSON: {file, level, title, valid, legal, moves, pushes, box_lines, box_changes, pushing_sessions, player_lines, solved, error}; for the stored solutions {file, solutions: [the same, with snapshot], valid, invalid}")
	return cmd
}

// check replays the solution text on l. Malformed text is an error; an
// illegal step is reported in the output.
func check(l *sokoban.Level, text string) (verifyOutput, error) {
	sol, err := sokoban.ParseSolution(text)
	if err != nil {
		return verifyOutput{}, err
	}
	m, err := sokoban.Replay(l, sol)
	out := verifyOutput{Title: l.Title, Metrics: m, Legal: err == nil}
	var se *sokoban.StepError
	if errors.As(err, &se) {
		out.Error = &stepErrorJSON{Step: se.Index, Move: string(se.Step.Byte()), Kind: se.Kind.String(), Message: se.Error()}
	} else if err != nil {
		return verifyOutput{}, err
	}
	out.Valid = out.Legal && m.Solved
	return out, nil
}

// verifyStored checks every solution stored in the file at path, or those
// of level only when it is not 0. A file without one is bad input.
func verifyStored(env *Env, path string, only int, asJSON bool) error {
	c, err := readCollection(env, path)
	if err != nil {
		return err
	}
	if only < 0 || only > len(c.Levels) {
		return withCode(exitBadInput, fmt.Errorf("%s has %d level(s); there is no level %d", path, len(c.Levels), only))
	}
	out := storedOutput{File: path, Solutions: []verifyOutput{}}
	for i, l := range c.Levels {
		if only != 0 && i+1 != only {
			continue
		}
		for _, s := range l.Snapshots {
			if !s.IsSolution() {
				continue
			}
			v, err := check(l, s.Moves)
			if err != nil {
				v = verifyOutput{Title: l.Title, Error: &stepErrorJSON{Kind: "malformed", Message: err.Error()}}
			}
			v.File, v.Level, v.Snapshot = path, i+1, s.Title
			if v.Valid {
				out.Valid++
			} else {
				out.Invalid++
			}
			out.Solutions = append(out.Solutions, v)
		}
	}
	if len(out.Solutions) == 0 {
		return withCode(exitBadInput, fmt.Errorf("%s stores no solution to check; give SOLUTION or --solution-file", path))
	}
	if asJSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		for _, v := range out.Solutions {
			printVerify(env, v)
		}
		fmt.Fprintf(env.Stdout, "%d stored solution(s): %d valid, %d invalid\n", len(out.Solutions), out.Valid, out.Invalid)
	}
	if out.Invalid > 0 {
		return withCode(exitInvalid, errSilent)
	}
	return nil
}

func printVerify(env *Env, o verifyOutput) {
	name := fmt.Sprintf("level %d%s", o.Level, titleSuffix(o.Title))
	what := "the solution"
	if o.Snapshot != "" {
		what = fmt.Sprintf("the stored solution %q", o.Snapshot)
		name += fmt.Sprintf(", stored solution %q", o.Snapshot)
	}
	switch {
	case o.Error != nil:
		fmt.Fprintf(env.Stdout, "invalid: %s: %s\n", name, o.Error.Message)
	case !o.Solved:
		fmt.Fprintf(env.Stdout, "invalid: %s: every step is legal but the level is not solved at the end\n", name)
	default:
		fmt.Fprintf(env.Stdout, "valid: %s solves level %d%s\n", what, o.Level, titleSuffix(o.Title))
	}
	fmt.Fprintf(env.Stdout, "moves %d  pushes %d  box lines %d  box changes %d  pushing sessions %d  player lines %d\n",
		o.Moves, o.Pushes, o.BoxLines, o.BoxChanges, o.PushingSessions, o.PlayerLines)
}

// titleSuffix is " (title)", or "" for no title.
func titleSuffix(title string) string {
	if title == "" {
		return ""
	}
	return " (" + title + ")"
}
