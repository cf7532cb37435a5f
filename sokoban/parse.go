package sokoban

import (
	"strings"
	"unicode"
)

// Collection is an ordered set of levels read from one text, with the text
// that stands before the first level's own lines.
type Collection struct {
	// Header holds the lines before the first level that are not that
	// level's title or notes: typically the collection's name and
	// description, with ";" markers removed.
	Header []string
	// Notes are the "Key: value" lines of the header.
	Notes []Note
	// Levels are the levels in file order; level N of the collection is
	// Levels[N-1].
	Levels []*Level
}

// Parse reads exactly one level. It accepts everything ParseCollection
// does; input with no board is ErrEmpty and input with several boards is
// ErrLevelCount.
func Parse(src string) (*Level, error) {
	c, err := ParseCollection(src)
	if err != nil {
		return nil, err
	}
	if n := len(c.Levels); n != 1 {
		l := c.Levels[1]
		return nil, &ParseError{Kind: ErrLevelCount, Line: l.Line, Reason: "a second level starts here; expected exactly one level"}
	}
	return c.Levels[0], nil
}

// ParseCollection reads every level of a text in XSB or SOK form.
//
// Board rows use '#' wall, '@' player, '+' player on goal, '$' box, '*' box
// on goal, '.' goal, and ' ', '-' or '_' floor; a tab in a row advances to
// the next multiple of eight columns. Rows may be run-length encoded: a
// count before a character or a parenthesised group repeats it, groups
// nest, and '|' separates rows, so "4#|#@$.#|4#" is a whole board on one
// line. A line is a board row when its first non-blank character is '#',
// when it holds only board and run-length characters and at least one '#',
// or when it holds only board characters, not all floor, and touches a
// board row above or below.
//
// Text between boards is given out as follows. Lines right after a board,
// up to the first blank line, belong to that board: a ";" line there is its
// title if it has none (the Microban III layout; if it has one, the ";"
// line and what follows go to the next board), "Key: value" lines are
// its notes, other text joins its comment. The remaining lines belong to
// the next board: its title is the last ";" line among them, else the last
// plain text line (a "Title:" note wins over both), notes are its notes, and other
// lines join its comment, or the collection's Header before the first
// board. "Comment:" ... "Comment-End:" blocks are kept whole. Saved games
// and solutions after a board are its Snapshots: a line whose first word is
// Solution, Snapshot, Save or Saved, directly followed by lines of LURD,
// then the lines up to the next blank one (the snapshot's notes and
// comment). Line ends may be LF or CRLF; trailing blanks are ignored.
//
// The first invalid level ends parsing with a *ParseError that names the
// level, line, column and reason.
func ParseCollection(src string) (*Collection, error) {
	items := scan(src)
	c := &Collection{}
	var gap []item // text items since the last board
	var prev *Level
	for i := 0; i < len(items); {
		if items[i].kind != itemBoard {
			gap = append(gap, items[i])
			i++
			continue
		}
		j := i
		for j < len(items) && items[j].kind == itemBoard {
			j++
		}
		l, err := buildLevel(items[i:j])
		if err != nil {
			err.Level = len(c.Levels) + 1
			return nil, err
		}
		assignGap(c, prev, l, gap)
		gap = gap[:0]
		c.Levels = append(c.Levels, l)
		prev = l
		i = j
	}
	if len(c.Levels) == 0 {
		return nil, &ParseError{Kind: ErrEmpty, Reason: "no board found"}
	}
	assignGap(c, prev, nil, gap)
	return c, nil
}

type itemKind int

const (
	itemBlank   itemKind = iota
	itemBoard            // a board row; text is the row as written
	itemSemi             // a ";" line; text is what follows the ';', trimmed
	itemNote             // "Key: value"
	itemComment          // a whole Comment: ... Comment-End: block, or "Comment: text"
	itemText             // any other line
)

type item struct {
	kind      itemKind
	line      int // 1-based source line
	text, key string
}

// scan splits src into classified lines.
func scan(src string) []item {
	lines := strings.Split(src, "\n")
	board := boardRows(lines)
	items := make([]item, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimRightFunc(lines[i], unicode.IsSpace)
		it := item{line: i + 1, text: raw}
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == "":
			it.kind = itemBlank
		case board[i]:
			it.kind = itemBoard
		case trimmed[0] == ';':
			it.kind, it.text = itemSemi, strings.TrimSpace(trimmed[1:])
		default:
			key, value, ok := noteLine(trimmed)
			switch {
			case ok && strings.EqualFold(key, "Comment") && value == "":
				var body []string
				for i+1 < len(lines) {
					i++
					l := strings.TrimRightFunc(lines[i], unicode.IsSpace)
					if k, _, ok := noteLine(strings.TrimSpace(l)); ok && strings.EqualFold(k, "Comment-End") {
						break
					}
					body = append(body, l)
				}
				it.kind, it.text = itemComment, strings.Join(body, "\n")
			case ok && strings.EqualFold(key, "Comment"):
				it.kind, it.text = itemComment, value
			case ok:
				it.kind, it.key, it.text = itemNote, key, value
			default:
				it.kind, it.text = itemText, trimmed
			}
		}
		items = append(items, it)
	}
	return items
}

const (
	boardChars = "#@+$*.-_ \t"
	rleChars   = "0123456789()|"
)

// boardRows marks the lines that are board rows. A line whose first
// non-blank character is '#' is one (unless it is a note), and so is a line
// of board and run-length characters with at least one '#'. A line of board
// characters alone with at least one object on it ("  $ ." has no wall, as
// in a board whose top row is a lone goal outside the walls) is one when
// it touches a board row above or below.
func boardRows(lines []string) []bool {
	board := make([]bool, len(lines))
	weak := make([]bool, len(lines))
	for i, l := range lines {
		board[i], weak[i] = classifyRow(strings.TrimRightFunc(l, unicode.IsSpace))
	}
	for i := 1; i < len(lines); i++ {
		board[i] = board[i] || weak[i] && board[i-1]
	}
	for i := len(lines) - 2; i >= 0; i-- {
		board[i] = board[i] || weak[i] && board[i+1]
	}
	return board
}

// classifyRow says whether s is a board row on its own (strong) or only
// next to one (weak).
func classifyRow(s string) (strong, weak bool) {
	t := strings.TrimLeft(s, " \t-_")
	if t == "" {
		return false, false
	}
	if t[0] == '#' {
		_, _, note := noteLine(strings.TrimSpace(s))
		return !note, false
	}
	onlyBoard, onlyRLE := true, true
	for _, r := range s {
		inBoard := strings.ContainsRune(boardChars, r)
		onlyBoard = onlyBoard && inBoard
		onlyRLE = onlyRLE && (inBoard || strings.ContainsRune(rleChars, r))
	}
	return onlyRLE && strings.ContainsRune(s, '#'), onlyBoard
}

// noteLine recognises "Key: value", where Key is one to four words of
// letters and dashes, so that a title such as "Level 3: Start" is not
// taken for a note.
func noteLine(s string) (key, value string, ok bool) {
	k, v, found := strings.Cut(s, ":")
	if !found || k == "" || len(k) > 40 || k != strings.TrimSpace(k) {
		return "", "", false
	}
	words := 1
	for i, r := range k {
		switch {
		case r == ' ':
			words++
		case r == '-' && i > 0, unicode.IsLetter(r):
		default:
			return "", "", false
		}
	}
	if words > 4 {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

// assignGap gives the text items between the boards prev and next (either
// may be nil) to their owners, as ParseCollection documents.
func assignGap(c *Collection, prev, next *Level, gap []item) {
	if prev != nil {
		gap = takeSnapshots(prev, gap, next != nil)
	}
	i := 0
	if prev != nil {
		// A ";" line after a board that has a title already starts the
		// next board's lines (a title written right under the board before).
		for ; i < len(gap) && gap[i].kind != itemBlank && (gap[i].kind != itemSemi || prev.Title == ""); i++ {
			attach(prev, gap[i], true)
		}
	}
	rest := gap[i:]
	if next == nil {
		// Text after the last board: keep it with that board, never drop it.
		for _, it := range rest {
			if prev != nil {
				attach(prev, it, false)
			}
		}
		return
	}
	title := lastOf(rest, itemSemi)
	if title < 0 {
		title = lastOf(rest, itemText)
	}
	for k, it := range rest {
		switch {
		case k == title && next.Title == "":
			next.Title = it.text
		case prev == nil && (it.kind == itemSemi || it.kind == itemText):
			c.Header = append(c.Header, it.text)
		case prev == nil && it.kind == itemNote:
			c.Notes = append(c.Notes, Note{Key: it.key, Value: it.text})
		default:
			attach(next, it, false)
		}
	}
}

func lastOf(items []item, kind itemKind) int {
	for k := len(items) - 1; k >= 0; k-- {
		if items[k].kind == kind {
			return k
		}
	}
	return -1
}

// attach gives one text item to l. A ";" line right after a board is its
// title when it has none.
func attach(l *Level, it item, trailer bool) {
	switch it.kind {
	case itemBlank:
	case itemSemi:
		if trailer && l.Title == "" {
			l.Title = it.text
		} else {
			l.addComment(it.text)
		}
	case itemNote:
		if strings.EqualFold(it.key, "Title") {
			// A "Title:" note wins over a ";" title, which is kept as comment.
			if l.Title != "" {
				l.addComment(l.Title)
			}
			l.Title = it.text
			return
		}
		l.Notes = append(l.Notes, Note{Key: it.key, Value: it.text})
	default:
		l.addComment(it.text)
	}
}

func (l *Level) addComment(s string) {
	if l.Comment != "" {
		l.Comment += "\n"
	}
	l.Comment += s
}
