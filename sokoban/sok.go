package sokoban

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Snapshot is a saved game or a solution stored with a level in a SOK
// file: a title line, the moves in LURD, and the notes after them. Sokoban
// GUIs (Sokoban YASC, JSoko, Sokoban++) write their solutions this way, one
// block per solution after the level's board and notes.
type Snapshot struct {
	// Title is the block's title line as written, such as "Solution",
	// "Solution (13 moves, 3 pushes)", "Solution/Pushes" or "Snapshot".
	Title string
	// Moves is the LURD text as written, its lines joined by "\n";
	// ParseSolution reads it. It is not checked when the file is read.
	Moves string
	// Notes are the block's "Key: value" lines.
	Notes []Note
	// Comment holds the block's other text lines and Comment: blocks.
	Comment string
	// Line is the 1-based source line of the title; 0 when the snapshot was
	// not parsed from text.
	Line int
}

// IsSolution reports whether the snapshot says it is a solution: its title
// starts with the word "Solution". Others are saved games, which need not
// solve the level.
func (s Snapshot) IsSolution() bool {
	return strings.EqualFold(leadingWord(s.Title), "solution")
}

// Check reads the snapshot's moves and replays them on l, as Replay does:
// the error is a *SolutionError for malformed moves, a *StepError for an
// illegal step; Metrics.Solved says whether the moves solve l.
func (s Snapshot) Check(l *Level) (Metrics, error) {
	sol, err := ParseSolution(s.Moves)
	if err != nil {
		return Metrics{}, err
	}
	return Replay(l, sol)
}

// SolvedInFile reports whether one of l's snapshots is a solution whose
// moves solve l.
func (l *Level) SolvedInFile() bool {
	for _, s := range l.Snapshots {
		if m, err := s.Check(l); s.IsSolution() && err == nil && m.Solved {
			return true
		}
	}
	return false
}

// AddSolution stores sol as a solution snapshot titled by SolutionTitle,
// unless a stored solution that solves l is as good in both moves and
// pushes or sol is empty, and reports whether it stored sol. It never removes a snapshot.
// The error says why sol does not solve l.
func (l *Level) AddSolution(sol Solution) (bool, error) {
	m, err := Replay(l, sol)
	if err != nil {
		return false, err
	}
	if !m.Solved {
		return false, errors.New("the solution does not solve the level")
	}
	if len(sol) == 0 {
		return false, nil // the level starts solved: nothing to store
	}
	for _, s := range l.Snapshots {
		if old, err := s.Check(l); s.IsSolution() && err == nil && old.Solved && old.Moves <= m.Moves && old.Pushes <= m.Pushes {
			return false, nil
		}
	}
	l.Snapshots = append(l.Snapshots, Snapshot{Title: SolutionTitle(m), Moves: sol.String()})
	return true, nil
}

// SolutionTitle is the title sokod gives a solution it writes:
// "Solution (N moves, M pushes)".
func SolutionTitle(m Metrics) string {
	return fmt.Sprintf("Solution (%d moves, %d pushes)", m.Moves, m.Pushes)
}

// leadingWord returns the letters s starts with.
func leadingWord(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		return s
	}
	return s[:end]
}

// isSnapshotTitle reports whether gap[k] starts a snapshot: a text line
// whose first word is Solution, Snapshot, Save or Saved, directly followed
// by a line of moves. Requiring the moves keeps a level title such as
// "Saved by the bell" a title.
func (p *parser) isSnapshotTitle(gap []ref, k int) bool {
	if p.kind(gap[k]) != itemText || k+1 >= len(gap) || p.kind(gap[k+1]) != itemText || !isMoves(p.item(gap[k+1])) {
		return false
	}
	switch strings.ToLower(leadingWord(p.item(gap[k]).text)) {
	case "solution", "snapshot", "save", "saved":
		return true
	}
	return false
}

// isMoves reports whether it is a line of LURD: the letters, counts and
// groups of ParseSolution, at least one letter.
func isMoves(it item) bool {
	if it.kind != itemText {
		return false
	}
	letter := false
	for _, r := range it.text {
		switch {
		case strings.ContainsRune("lurdLURD", r):
			letter = true
		case strings.ContainsRune("0123456789() \t", r):
		default:
			return false
		}
	}
	return letter
}

// takeSnapshots moves the snapshots in gap, the text after l's board, to
// l.Snapshots and returns the rest of gap, with a blank line in place of
// each snapshot. A snapshot is its title line, its lines of moves, then
// the lines up to the next blank one: its notes and comment. When a board
// follows the gap, a snapshot that runs to that board leaves it its last
// line, the board's title.
//
// The rest is written over gap, which holds the refs of no other gap.
func (p *parser) takeSnapshots(l *Level, gap []ref, beforeBoard bool) []ref {
	rest := gap[:0]
	for k := 0; k < len(gap); {
		if !p.isSnapshotTitle(gap, k) {
			rest = append(rest, gap[k])
			k++
			continue
		}
		title := p.item(gap[k])
		s := Snapshot{Title: title.text, Line: title.line}
		j := k + 1
		var moves strings.Builder
		for ; j < len(gap); j++ {
			it := p.item(gap[j])
			if !isMoves(it) {
				break
			}
			if moves.Len() > 0 {
				moves.WriteByte('\n')
			}
			moves.WriteString(it.text)
		}
		s.Moves = moves.String()
		end := j
		for end < len(gap) && p.kind(gap[end]) != itemBlank {
			end++
		}
		if beforeBoard && end == len(gap) && end > j {
			end--
		}
		var comment strings.Builder
		for ; j < end; j++ {
			switch it := p.item(gap[j]); it.kind {
			case itemNote:
				s.Notes = append(s.Notes, Note{Key: it.key, Value: it.text})
			default:
				if comment.Len() > 0 {
					comment.WriteByte('\n')
				}
				comment.WriteString(it.text)
			}
		}
		s.Comment = comment.String()
		l.Snapshots = append(l.Snapshots, s)
		rest = append(rest, ref{off: -1, lb: uint32(title.line) << 1})
		k = end
	}
	return rest
}

// plainLine reports whether s, written on a line of its own, reads back as
// a plain text line: not blank, not a ";" line, not a board row even next
// to a board, not a note. Titles and header lines that are not plain are
// written after ";".
func plainLine(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || s[0] == ';' || strings.ContainsAny(s, "\r\n") {
		return false
	}
	if strong, weak := classifyRow(s); strong || weak {
		return false
	}
	_, _, note := noteLine(s)
	return !note
}

// Text returns the collection in SOK form, which ParseCollection reads
// back to an equal Collection: the header lines and notes, then each level
// as Level.Text writes it, a blank line before each.
func (c *Collection) Text() string {
	var b strings.Builder
	semi := false // a header line was written after ";", or a plain one
	for _, h := range c.Header {
		if plainLine(h) {
			b.WriteString(h + "\n")
		} else {
			b.WriteString("; " + h + "\n")
		}
		semi = true
	}
	for _, n := range c.Notes {
		b.WriteString(n.Key + ": " + n.Value + "\n")
	}
	for i, l := range c.Levels {
		if i > 0 || b.Len() > 0 {
			b.WriteByte('\n')
		}
		// The last ";" line before a board is its title, else the last
		// plain line: after header lines the first title needs a ";".
		l.write(&b, semi && i == 0)
	}
	return b.String()
}

// Text returns the level as a SOK block that ParseCollection reads back to
// an equal Level: the title on the line before the board (after ";" when
// the title alone could be misread), the board, the notes, the comment as
// a Comment: ... Comment-End: block, then each snapshot after a blank
// line: its title, its moves, its notes and comment.
func (l *Level) Text() string {
	var b strings.Builder
	l.write(&b, false)
	return b.String()
}

// write writes l as Text does; semiTitle writes the title after ";" even
// when it could stand alone, and an empty one as ";".
func (l *Level) write(b *strings.Builder, semiTitle bool) {
	switch {
	case l.Title == "" && semiTitle:
		// An empty ";" title, so that a header line before is not read
		// back as the title.
		b.WriteString(";\n")
	case l.Title == "":
	case plainLine(l.Title) && !semiTitle:
		b.WriteString(l.Title + "\n")
	default:
		b.WriteString("; " + l.Title + "\n")
	}
	b.WriteString(l.XSB())
	writeNotes(b, l.Notes, l.Comment)
	for _, s := range l.Snapshots {
		b.WriteString("\n" + s.Title + "\n" + s.Moves + "\n")
		writeNotes(b, s.Notes, s.Comment)
	}
}

// writeNotes writes notes as "Key: value" lines and comment as a
// Comment: ... Comment-End: block. A comment line that would close the
// block (a "Comment-End: x" the comment got from a one-line "Comment:")
// is written as a one-line comment between blocks, which reads back as
// the same lines.
func writeNotes(b *strings.Builder, notes []Note, comment string) {
	for _, n := range notes {
		b.WriteString(n.Key + ": " + n.Value + "\n")
	}
	if comment == "" {
		return
	}
	start, open := 0, false
	lines := strings.Split(comment, "\n")
	flush := func(end int) {
		if open {
			b.WriteString("Comment:\n" + strings.Join(lines[start:end], "\n") + "\nComment-End:\n")
		}
		start, open = end+1, false
	}
	for i, l := range lines {
		if endsBlock(l) {
			flush(i)
			b.WriteString("Comment: " + l + "\n")
			continue
		}
		open = true
	}
	flush(len(lines))
}
