package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// levelInfo is one level in the output of "sokod levels --json".
type levelInfo struct {
	Index  int    `json:"index"` // 1-based position in the file
	Title  string `json:"title"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Boxes  int    `json:"boxes"`
	Solved bool   `json:"solved"` // every box already on a goal
	// Solutions counts the solutions stored in the file for the level.
	Solutions int `json:"solutions"`
	// SolvedInFile is true when one of them replays and solves the level.
	SolvedInFile bool `json:"solved_in_file"`
}

// levelsOutput is the whole "sokod levels --json" document.
type levelsOutput struct {
	File   string      `json:"file"`
	Levels []levelInfo `json:"levels"`
}

func levelsCommand(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "levels FILE [--json]",
		Short:             "List the levels of a collection file (- for standard input).",
		Args:              argsBetween(1, 1),
		ValidArgsFunction: levelFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := readCollection(env, args[0])
			if err != nil {
				return err
			}
			out := levelsOutput{File: args[0], Levels: make([]levelInfo, len(c.Levels))}
			for i, l := range c.Levels {
				out.Levels[i] = levelInfo{Index: i + 1, Title: l.Title, Width: l.Width(), Height: l.Height(), Boxes: l.Boxes(), Solved: l.Solved(),
					SolvedInFile: l.SolvedInFile()}
				for _, s := range l.Snapshots {
					if s.IsSolution() {
						out.Levels[i].Solutions++
					}
				}
			}
			if asJSON {
				return writeJSON(env.Stdout, out)
			}
			fmt.Fprintln(env.Stdout, "level  width  height  boxes  title")
			for _, l := range out.Levels {
				title := l.Title
				switch {
				case l.Solved:
					title += " (boxes already on goals)"
				case l.SolvedInFile:
					title += " (solved in the file)"
				case l.Solutions > 0:
					title += " (stored solutions do not solve it)"
				}
				title = strings.TrimSpace(title)
				fmt.Fprintf(env.Stdout, "%5d  %5d  %6d  %5d  %s\n", l.Index, l.Width, l.Height, l.Boxes, title)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {file, levels: [{index, title, width, height, boxes, solved, solutions, solved_in_file}]}; solved: every box already on a goal; solutions: how many are stored in the file; solved_in_file: one of them solves the level")
	return cmd
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
