// Package store is sokod's solution store: for every level solved, the best
// known solution by pushes and the best by moves, who found each and when,
// and whether the pushes are proved optimal, in one SQLite file (through
// modernc.org/sqlite, a pure-Go driver).
//
// A level is keyed by its canonical form (see form): the same level read
// from two files, indented differently or with the player elsewhere in the
// same region, is one entry. Solutions are kept as solutions of the
// canonical level and moved to a caller's level on the way out, with the
// same pushes and shortest walks between them; every solution that goes in
// or comes out has been replayed on the level it is for.
//
// Several processes (daemons, workers, CLI solves) may use one file at
// once: the database runs in WAL mode, readers never wait for writers, and
// each update is one immediate transaction that reads and replaces the
// stored rows, so two processes offering solutions of the same level at
// once keep the better.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sokod/sokod/sokoban"
)

// busyTimeout is how long a writer waits for another process's write
// transaction; updates last milliseconds.
const busyTimeout = 30 * time.Second

// schema creates the tables of an empty store. Times are Unix
// milliseconds; optimal is 0 or 1.
const schema = `
CREATE TABLE IF NOT EXISTS levels (
	board TEXT PRIMARY KEY,
	title TEXT NOT NULL,
	added INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS solutions (
	board TEXT NOT NULL REFERENCES levels(board),
	metric TEXT NOT NULL CHECK (metric IN ('pushes', 'moves')),
	lurd TEXT NOT NULL,
	moves INTEGER NOT NULL,
	pushes INTEGER NOT NULL,
	box_lines INTEGER NOT NULL,
	box_changes INTEGER NOT NULL,
	optimal INTEGER NOT NULL,
	found_by TEXT NOT NULL,
	found_at INTEGER NOT NULL,
	PRIMARY KEY (board, metric)
);
PRAGMA user_version = 1;
`

// Store is an open solution store. Its methods are safe for concurrent
// use.
type Store struct {
	db    *sql.DB
	path  string
	clock func() time.Time
}

// Options configure Open.
type Options struct {
	// Clock stamps new solutions; nil means time.Now.
	Clock func() time.Time
}

// Open opens the store at path, creating the file and its directory when
// they do not exist.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: no path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store: path %q: must not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	// Transactions take the write lock when they begin, so two processes
	// that read a level's rows to replace them cannot interleave.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, clock: opts.Clock}
	if s.clock == nil {
		s.clock = time.Now
	}
	if err := s.init(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// init creates the schema or checks the existing one.
func (s *Store) init(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("store: %s is not a solution store: %w", s.path, err)
	}
	switch version {
	case 0:
		if _, err := s.db.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("store: create %s: %w", s.path, err)
		}
	case 1:
	default:
		return fmt.Errorf("store: %s has schema version %d; this sokod reads version 1", s.path, version)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path returns the file the store was opened at.
func (s *Store) Path() string { return s.path }

// Solution is a stored solution.
type Solution struct {
	// Solution has been replayed on the level it was returned for.
	Solution sokoban.Solution
	Metrics  sokoban.Metrics
	// Optimal is true when its pushes are proved the fewest possible.
	Optimal bool
	// FoundBy names the component or solver that found it.
	FoundBy string
	// FoundAt is when it was first stored.
	FoundAt time.Time
}

// Known is what the store holds for one level: the best solution by
// pushes (fewest pushes, then fewest moves) and by moves (fewest moves,
// then fewest pushes), which may be the same solution.
type Known struct {
	// Title is the title the level had when first stored.
	Title  string
	Pushes *Solution
	Moves  *Solution
}

// Lookup returns what is stored for l, its solutions moved to l's player
// start and replayed on l; nil when the store has nothing for it.
func (s *Store) Lookup(ctx context.Context, l *sokoban.Level) (*Known, error) {
	f, err := canonical(l)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	k, err := read(ctx, tx, f.key)
	if err != nil || k == nil {
		return nil, err
	}
	for _, r := range []*row{k.pushes, k.moves} {
		if r == nil {
			continue
		}
		if r.sol, r.m, err = r.onto(l, f); err != nil {
			return nil, fmt.Errorf("store: the stored %s solution of %q does not solve it: %w", r.metric, k.title, err)
		}
	}
	return k.public(), nil
}

// Found is a solution offered to the store.
type Found struct {
	// Solution is in LURD steps for the level it is offered with.
	Solution sokoban.Solution
	// Optimal says its pushes are proved the fewest possible.
	Optimal bool
	// FoundBy names who found it; it must not be empty.
	FoundBy string
}

// Outcome is what Record changed.
type Outcome struct {
	// Pushes and Moves are true when the offered solution became the best
	// by that metric.
	Pushes, Moves bool
	// Proved is true when the stored best by pushes became proved optimal.
	Proved bool
	// Contradiction, when not empty, says the offer and the store disagree
	// about a proof of optimality: one proof is wrong. The store keeps the
	// solution with fewer pushes, unproved.
	Contradiction string
}

// Changed reports whether the store changed.
func (o Outcome) Changed() bool { return o.Pushes || o.Moves || o.Proved }

// Record offers a solution of l. It is replayed on l first: an illegal
// solution, or one that leaves the level unsolved, is an error and is not
// kept. It replaces a stored solution it beats; a stored proof of
// optimality stays with the stored pushes when the offer has as many.
func (s *Store) Record(ctx context.Context, l *sokoban.Level, found Found) (Outcome, error) {
	var out Outcome
	if found.FoundBy == "" {
		return out, errors.New("store: a solution needs a finder's name")
	}
	f, err := canonical(l)
	if err != nil {
		return out, fmt.Errorf("store: %w", err)
	}
	pushes, err := pushesOf(l, f, found.Solution)
	if err != nil {
		return out, fmt.Errorf("store: the solution does not solve the level: %w", err)
	}
	sol, err := render(f.level, f, pushes)
	if err != nil {
		return out, fmt.Errorf("store: %w", err)
	}
	m, err := sokoban.Replay(f.level, sol)
	if err != nil || !m.Solved {
		// render only replays legal pushes; this is a bug here.
		return out, fmt.Errorf("store: the canonical solution does not replay (%v)", err)
	}
	now := s.clock().UnixMilli()
	offer := &row{lurd: sol.String(), m: m, optimal: found.Optimal, foundBy: found.FoundBy, foundAt: now}

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("store: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	k, err := read(ctx, tx, f.key)
	if err != nil {
		return out, err
	}
	if k == nil {
		k = &known{}
		if _, err := tx.ExecContext(ctx, "INSERT INTO levels (board, title, added) VALUES (?, ?, ?)", f.key, l.Title, now); err != nil {
			return out, fmt.Errorf("store: %w", err)
		}
	}
	out = decide(k, offer)
	switch {
	case out.Pushes:
		best := *offer
		best.metric = "pushes"
		err = write(ctx, tx, f.key, &best)
	case out.Proved:
		k.pushes.optimal = true
		err = write(ctx, tx, f.key, k.pushes)
	}
	if err != nil {
		return Outcome{}, err
	}
	if out.Moves {
		best := *offer
		best.metric = "moves"
		if err := write(ctx, tx, f.key, &best); err != nil {
			return Outcome{}, err
		}
	}
	if err := tx.Commit(); err != nil {
		return Outcome{}, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// decide compares an offered solution with what is stored.
func decide(k *known, offer *row) Outcome {
	var out Outcome
	p := k.pushes
	switch {
	case p == nil:
		out.Pushes = true
	case offer.m.Pushes < p.m.Pushes:
		out.Pushes = true
		if p.optimal {
			out.Contradiction = fmt.Sprintf("a solution with %d pushes replaces one of %d proved optimal (found by %s)", offer.m.Pushes, p.m.Pushes, p.foundBy)
		}
	case offer.m.Pushes == p.m.Pushes:
		out.Pushes = offer.m.Moves < p.m.Moves
		// A proof is about the number of pushes: it holds for every
		// solution with as many.
		if p.optimal {
			offer.optimal = true
		}
		out.Proved = offer.optimal && !p.optimal
	default:
		if offer.optimal {
			out.Contradiction = fmt.Sprintf("a solution with %d pushes claims to be optimal, but one with %d is stored (found by %s)", offer.m.Pushes, p.m.Pushes, p.foundBy)
			offer.optimal = false
		}
	}
	if m := k.moves; m == nil || offer.m.Moves < m.m.Moves || offer.m.Moves == m.m.Moves && offer.m.Pushes < m.m.Pushes {
		out.Moves = true
	}
	return out
}

// row is one stored solution, of the canonical level.
type row struct {
	metric  string
	lurd    string
	m       sokoban.Metrics
	optimal bool
	foundBy string
	foundAt int64
	// sol, once moved onto a caller's level, and m are that level's.
	sol sokoban.Solution
}

func (r *row) solution() *Solution {
	return &Solution{Solution: r.sol, Metrics: r.m, Optimal: r.optimal, FoundBy: r.foundBy, FoundAt: time.UnixMilli(r.foundAt)}
}

// onto moves the stored solution onto l, whose canonical form is f, and
// replays it there.
func (r *row) onto(l *sokoban.Level, f *form) (sokoban.Solution, sokoban.Metrics, error) {
	stored, err := sokoban.ParseSolution(r.lurd)
	if err != nil {
		return nil, sokoban.Metrics{}, err
	}
	pushes, err := pushesOf(f.level, f, stored)
	if err != nil {
		return nil, sokoban.Metrics{}, err
	}
	sol, err := render(l, f, pushes)
	if err != nil {
		return nil, sokoban.Metrics{}, err
	}
	m, err := sokoban.Replay(l, sol)
	if err != nil {
		return nil, sokoban.Metrics{}, err
	}
	if !m.Solved {
		return nil, sokoban.Metrics{}, errNotSolved
	}
	return sol, m, nil
}

// known is a level's stored rows.
type known struct {
	title         string
	pushes, moves *row
}

// public returns k as Known. A proof of the fewest pushes holds for the
// best by moves too when it has as many.
func (k *known) public() *Known {
	out := &Known{Title: k.title}
	if k.pushes != nil {
		out.Pushes = k.pushes.solution()
	}
	if k.moves != nil {
		out.Moves = k.moves.solution()
		if k.pushes != nil && k.pushes.optimal && k.moves.m.Pushes == k.pushes.m.Pushes {
			out.Moves.Optimal = true
		}
	}
	return out
}

// querier is what read needs of a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// read returns the rows stored for the canonical board key, nil when there
// are none.
func read(ctx context.Context, q querier, key string) (*known, error) {
	rows, err := q.QueryContext(ctx, `SELECT l.title, s.metric, s.lurd, s.moves, s.pushes, s.box_lines, s.box_changes, s.optimal, s.found_by, s.found_at
		FROM levels l LEFT JOIN solutions s ON s.board = l.board WHERE l.board = ?`, key)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var k *known
	for rows.Next() {
		if k == nil {
			k = &known{}
		}
		var metric, lurd, foundBy sql.NullString
		var moves, pushes, lines, changes, optimal, foundAt sql.NullInt64
		if err := rows.Scan(&k.title, &metric, &lurd, &moves, &pushes, &lines, &changes, &optimal, &foundBy, &foundAt); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if !metric.Valid {
			continue
		}
		r := &row{metric: metric.String, lurd: lurd.String, optimal: optimal.Int64 != 0, foundBy: foundBy.String, foundAt: foundAt.Int64,
			m: sokoban.Metrics{Moves: int(moves.Int64), Pushes: int(pushes.Int64), BoxLines: int(lines.Int64), BoxChanges: int(changes.Int64), Solved: true}}
		if r.metric == "pushes" {
			k.pushes = r
		} else {
			k.moves = r
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return k, nil
}

// write stores r as the best of its metric for the canonical board key.
func write(ctx context.Context, tx *sql.Tx, key string, r *row) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO solutions (board, metric, lurd, moves, pushes, box_lines, box_changes, optimal, found_by, found_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (board, metric) DO UPDATE SET lurd = excluded.lurd, moves = excluded.moves, pushes = excluded.pushes,
			box_lines = excluded.box_lines, box_changes = excluded.box_changes, optimal = excluded.optimal,
			found_by = excluded.found_by, found_at = excluded.found_at`,
		key, r.metric, r.lurd, r.m.Moves, r.m.Pushes, r.m.BoxLines, r.m.BoxChanges, r.optimal, r.foundBy, r.foundAt)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Entry is one stored level with its solutions, as Each gives it.
type Entry struct {
	// Level is the canonical level, titled with the title it was first
	// stored with.
	Level *sokoban.Level
	Known
}

// Each calls fn for every stored level in the order they were first
// stored, until fn returns an error, which Each returns.
func (s *Store) Each(ctx context.Context, fn func(*Entry) error) error {
	rows, err := s.db.QueryContext(ctx, "SELECT board FROM levels ORDER BY added, rowid")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	var keys []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			rows.Close()
			return fmt.Errorf("store: %w", err)
		}
		keys = append(keys, key)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, key := range keys {
		l, err := sokoban.Parse(key)
		if err != nil {
			return fmt.Errorf("store: a stored board does not parse: %w", err)
		}
		k, err := s.Lookup(ctx, l)
		if err != nil {
			return err
		}
		if k == nil {
			continue // removed since the keys were read
		}
		l.Title = k.Title
		if err := fn(&Entry{Level: l, Known: *k}); err != nil {
			return err
		}
	}
	return nil
}

// Stats counts what the store holds.
type Stats struct {
	// Levels counts stored levels, Optimal those whose best by pushes is
	// proved optimal.
	Levels, Optimal int
}

// Stats counts the stored levels.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM levels),
		(SELECT count(*) FROM solutions WHERE metric = 'pushes' AND optimal = 1)`).Scan(&st.Levels, &st.Optimal)
	if err != nil {
		return st, fmt.Errorf("store: %w", err)
	}
	return st, nil
}
