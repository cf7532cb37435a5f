package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sokod/sokod/internal/store"
	"github.com/sokod/sokod/sokoban"
)

// openStore opens the solution store at store.path (--store); with none
// configured it returns nil. The function it returns closes the store.
func openStore(ctx context.Context, env *Env) (*store.Store, func(), error) {
	path := env.Config.Store.Path
	if path == "" {
		return nil, func() {}, nil
	}
	st, err := store.Open(ctx, path, store.Options{Clock: env.Now})
	if err != nil {
		return nil, nil, err
	}
	return st, func() {
		if err := st.Close(); err != nil {
			env.Log.Warn("closing the store", "path", path, "error", err)
		}
	}, nil
}

// onStore returns a command's RunE that opens the store, which it needs,
// and runs fn with it.
func onStore(env *Env, fn func(ctx context.Context, st *store.Store, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if env.Config.Store.Path == "" {
			return usagef("no store: set store.path (SOKOD_STORE_PATH, --store FILE)")
		}
		st, closeStore, err := openStore(ctx, env)
		if err != nil {
			return err
		}
		defer closeStore()
		return fn(ctx, st, args)
	}
}

// importOutput is the "sokod store import --json" document.
type importOutput struct {
	// Solutions counts the solutions read; Kept those that improved the
	// store; Invalid those that do not solve their level.
	Solutions int `json:"solutions"`
	Kept      int `json:"kept"`
	Invalid   int `json:"invalid"`
	// Rejected lists the invalid ones.
	Rejected []rejected `json:"rejected"`
}

// rejected is an imported solution that does not solve its level.
type rejected struct {
	File   string `json:"file"`
	Level  int    `json:"level"`
	Title  string `json:"title"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// storeInfo is the "sokod store info --json" document.
type storeInfo struct {
	Path    string `json:"path"`
	Levels  int    `json:"levels"`
	Optimal int    `json:"optimal"`
}

func storeCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store import|export|info",
		Short: "Import, export and count the solutions in the solution store (store.path).",
		Long: "The solution store (store.path, SOKOD_STORE_PATH or --store) is one SQLite file that keeps,\n" +
			"for every level solved, the best solution by pushes and the best by moves, who found them and\n" +
			"when, and whether the pushes are proved optimal. solve, serve and worker consult it first and\n" +
			"add what they find. A level is known by its board, wherever it comes from.",
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("unknown store subcommand %q: want import, export or info", args[0])
		},
	}
	cmd.AddCommand(storeImportCommand(env), storeExportCommand(env), storeInfoCommand(env))
	return cmd
}

func storeImportCommand(env *Env) *cobra.Command {
	var foundBy string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE... [--found-by NAME] [--json]",
		Short: "Add the solutions of SOK files to the store, each replayed first.",
		Long: "Read the solutions stored in SOK files (blocks titled Solution after a level, as GUIs and\n" +
			"solvers write them), replay each on its level, and keep those that beat the store's. A solution\n" +
			"is credited to its block's Solver note, else to --found-by, else to import:FILE. Claims of\n" +
			"optimality in a file are not taken: only sokod's own search proves. Exit code 4 when a solution\n" +
			"does not solve its level (the others are kept), 3 when a file cannot be read.",
		Args: argsBetween(1, 1<<20),
		RunE: onStore(env, func(ctx context.Context, st *store.Store, args []string) error {
			out := importOutput{Rejected: []rejected{}}
			for _, f := range args {
				c, err := readCollection(env, f)
				if err != nil {
					return err
				}
				by := foundBy
				if by == "" {
					by = "import:" + filepath.Base(f)
				}
				if err := importCollection(ctx, st, f, c, by, &out); err != nil {
					return err
				}
			}
			if asJSON {
				if err := writeJSON(env.Stdout, out); err != nil {
					return err
				}
			} else {
				for _, r := range out.Rejected {
					fmt.Fprintf(env.Stdout, "rejected: %s level %d (%s), line %d: %s\n", r.File, r.Level, r.Title, r.Line, r.Reason)
				}
				fmt.Fprintf(env.Stdout, "%d solutions read, %d kept, %d rejected\n", out.Solutions, out.Kept, out.Invalid)
			}
			if out.Invalid > 0 {
				return withCode(exitInvalid, errSilent)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&foundBy, "found-by", "", "credit the solutions to `name` when a block has no Solver note (default import:FILE)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {solutions, kept, invalid, rejected: [{file, level, title, line, reason}]}")
	return cmd
}

// importCollection offers every solution of c, read from file, to st.
func importCollection(ctx context.Context, st *store.Store, file string, c *sokoban.Collection, foundBy string, out *importOutput) error {
	for i, l := range c.Levels {
		for _, s := range l.Snapshots {
			if !s.IsSolution() {
				continue
			}
			out.Solutions++
			by := foundBy
			for _, n := range s.Notes {
				if n.Key == "Solver" && n.Value != "" {
					by = n.Value
				}
			}
			reject := func(err error) {
				out.Invalid++
				out.Rejected = append(out.Rejected, rejected{File: file, Level: i + 1, Title: l.Title, Line: s.Line, Reason: err.Error()})
			}
			sol, err := sokoban.ParseSolution(s.Moves)
			if err != nil {
				reject(err)
				continue
			}
			if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved {
				if err == nil {
					err = errors.New("the solution is legal but does not solve the level")
				}
				reject(err)
				continue
			}
			res, err := st.Record(ctx, l, store.Found{Solution: sol, FoundBy: by})
			if err != nil {
				return fmt.Errorf("%s level %d: %w", file, i+1, err)
			}
			if res.Changed() {
				out.Kept++
			}
		}
	}
	return nil
}

func storeExportCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "export FILE.sok",
		Short: "Write every stored level with its solutions as a SOK collection (- for standard output).",
		Long: "Write every stored level, in the order first stored, as a SOK collection: its title, its board\n" +
			"(as the store keys it: trimmed, the player on the first square of its region), then the best\n" +
			"solution by pushes and, when another, the best by moves, each titled Solution (N moves, M pushes)\n" +
			"with Solver, Date and, for a proof, Optimal: pushes notes. store import reads it back.",
		Args: argsBetween(1, 1),
		RunE: onStore(env, func(ctx context.Context, st *store.Store, args []string) error {
			c := &sokoban.Collection{Header: []string{"Solutions from the sokod store " + st.Path()}}
			err := st.Each(ctx, func(e *store.Entry) error {
				l := e.Level
				for _, s := range []*store.Solution{e.Pushes, e.Moves} {
					if s == nil || (s == e.Moves && e.Pushes != nil && s.Solution.String() == e.Pushes.Solution.String()) {
						continue
					}
					snap := sokoban.Snapshot{Title: sokoban.SolutionTitle(s.Metrics), Moves: s.Solution.String(),
						Notes: []sokoban.Note{{Key: "Solver", Value: s.FoundBy}, {Key: "Date", Value: s.FoundAt.UTC().Format(time.RFC3339)}}}
					if s.Optimal {
						snap.Notes = append(snap.Notes, sokoban.Note{Key: "Optimal", Value: "pushes"})
					}
					l.Snapshots = append(l.Snapshots, snap)
				}
				c.Levels = append(c.Levels, l)
				return nil
			})
			if err != nil {
				return err
			}
			if args[0] == "-" {
				_, err := io.WriteString(env.Stdout, c.Text())
				return err
			}
			f := &sokFile{path: args[0], c: c}
			return f.write()
		}),
	}
}

func storeInfoCommand(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info [--json]",
		Short: "Print the store's path, its number of levels and how many are proved push-optimal.",
		Args:  argsBetween(0, 0),
		RunE: onStore(env, func(ctx context.Context, st *store.Store, args []string) error {
			stats, err := st.Stats(ctx)
			if err != nil {
				return err
			}
			out := storeInfo{Path: st.Path(), Levels: stats.Levels, Optimal: stats.Optimal}
			if asJSON {
				return writeJSON(env.Stdout, out)
			}
			fmt.Fprintf(env.Stdout, "store %s: %d levels, %d proved push-optimal\n", out.Path, out.Levels, out.Optimal)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: {path, levels, optimal}")
	return cmd
}
