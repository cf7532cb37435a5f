package sokoban

import (
	"fmt"
	"slices"
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
	c, _, err := parse(src, func(int) bool { return true })
	return c, err
}

// ParseLevel reads src as ParseCollection does and returns its level n
// (from 1), nil when there is no such level, and the number of levels.
// The other levels are checked and dropped as soon as their text is
// read, so a long collection costs the memory of one level.
func ParseLevel(src string, n int) (*Level, int, error) {
	c, count, err := parse(src, func(i int) bool { return i == n-1 })
	if err != nil || len(c.Levels) == 0 {
		return nil, count, err
	}
	return c.Levels[0], count, nil
}

// parse reads src into a collection of the levels keep takes (by index
// from 0), and returns how many levels src holds.
func parse(src string, keep func(int) bool) (*Collection, int, error) {
	if len(src) > MaxInputBytes {
		return nil, 0, &ParseError{Kind: ErrTooLarge, Reason: fmt.Sprintf("the text is %d bytes, more than the %d a level text may have", len(src), MaxInputBytes)}
	}
	// A byte order mark is no part of the first line.
	p := &parser{src: strings.TrimPrefix(src, "\uFEFF"), comments: map[*Level]*strings.Builder{}}
	refs := p.scan()
	c := &Collection{}
	count := 0
	gap := 0 // refs[gap:i] are the text items since the last board
	var prev *Level
	for i := 0; i < len(refs); {
		if !refs[i].board() {
			i++
			continue
		}
		j := i
		for j < len(refs) && refs[j].board() {
			j++
		}
		l, err := p.buildLevel(refs[i:j])
		if err != nil {
			err.Level = count + 1
			return nil, count, err
		}
		p.assignGap(c, prev, l, refs[gap:i])
		if prev != nil && !keep(count-1) {
			delete(p.comments, prev) // its text is all read
		}
		if keep(count) {
			c.Levels = append(c.Levels, l)
		}
		count++
		prev = l
		i, gap = j, j
	}
	if count == 0 {
		return nil, 0, &ParseError{Kind: ErrEmpty, Reason: "no board found"}
	}
	p.assignGap(c, prev, nil, refs[gap:])
	for l, b := range p.comments {
		l.Comment = b.String()
	}
	return c, count, nil
}

// MaxInputBytes bounds the text ParseCollection reads. The largest
// collections are a few megabytes; the parser's own memory stays within a
// small multiple of the text.
const MaxInputBytes = 64 << 20

// parser holds one text being parsed and the comments of its levels while
// they are built.
type parser struct {
	src      string
	comments map[*Level]*strings.Builder
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

// item is one classified line, or one Comment: block.
type item struct {
	kind      itemKind
	line      int // 1-based source line
	text, key string
}

// ref is an item by where it starts in the text; parser.item expands it.
// A text costs 8 bytes per line, however short its lines, and a run of
// blank lines one ref. off is -1 for the blank line that stands in for a
// snapshot taken out of a gap (takeSnapshots). lb is the 1-based line
// number shifted left once, with bit 0 set for a board row.
type ref struct {
	off int32
	lb  uint32
}

func newRef(off, line int, board bool) ref {
	r := ref{off: int32(off), lb: uint32(line) << 1}
	if board {
		r.lb |= 1
	}
	return r
}

func (r ref) line() int   { return int(r.lb >> 1) }
func (r ref) board() bool { return r.lb&1 != 0 }

// lineAt returns the line that starts at off and where the next one
// starts; like strings.Split, a text has one line more than it has "\n".
func lineAt(src string, off int) (line string, next int) {
	if i := strings.IndexByte(src[off:], '\n'); i >= 0 {
		return src[off : off+i], off + i + 1
	}
	return src[off:], len(src) + 1
}

func trimBlanks(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// kind classifies r as item does, without building its text.
func (p *parser) kind(r ref) itemKind {
	if r.off < 0 {
		return itemBlank
	}
	if r.board() {
		return itemBoard
	}
	text, _ := lineAt(p.src, int(r.off))
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return itemBlank
	case trimmed[0] == ';':
		return itemSemi
	}
	switch key, _, ok := noteLine(trimmed); {
	case ok && strings.EqualFold(key, "Comment"):
		return itemComment
	case ok:
		return itemNote
	}
	return itemText
}

// item expands r.
func (p *parser) item(r ref) item {
	if r.off < 0 {
		return item{kind: itemBlank, line: r.line()}
	}
	it, _ := p.itemAt(int(r.off), r.line(), r.board())
	return it
}

// itemAt classifies the line at off, line number line, as an item (a board
// row when board is set), and returns where the next item starts: a
// Comment: block takes the lines up to its Comment-End: line.
func (p *parser) itemAt(off, line int, board bool) (item, int) {
	text, next := lineAt(p.src, off)
	raw := trimBlanks(text)
	it := item{line: line, text: raw}
	trimmed := strings.TrimSpace(raw)
	switch {
	case trimmed == "":
		it.kind = itemBlank
	case board:
		it.kind = itemBoard
	case trimmed[0] == ';':
		it.kind, it.text = itemSemi, strings.TrimSpace(trimmed[1:])
	default:
		key, value, ok := noteLine(trimmed)
		switch {
		case ok && strings.EqualFold(key, "Comment") && value == "":
			var body strings.Builder
			end := p.blockEnd(next)
			body.Grow(end - next)
			for n := 0; next < end; n++ {
				l, after := lineAt(p.src, next)
				next = after
				if next == end && endsBlock(l) {
					break
				}
				if n > 0 {
					body.WriteByte('\n')
				}
				body.WriteString(trimBlanks(l))
			}
			it.kind, it.text, next = itemComment, body.String(), end
		case ok && strings.EqualFold(key, "Comment"):
			it.kind, it.text = itemComment, value
		case ok:
			it.kind, it.key, it.text = itemNote, key, value
		default:
			it.kind, it.text = itemText, trimmed
		}
	}
	return it, next
}

// blockStart reports whether raw, a line that is no board row, opens a
// Comment: block.
func blockStart(raw string) bool {
	key, value, ok := noteLine(strings.TrimSpace(raw))
	return ok && strings.EqualFold(key, "Comment") && value == ""
}

// endsBlock reports whether line closes a Comment: block.
func endsBlock(line string) bool {
	k, _, ok := noteLine(strings.TrimSpace(line))
	return ok && strings.EqualFold(k, "Comment-End")
}

// blockEnd returns where the item after a Comment: block whose body starts
// at off starts: past its Comment-End: line, or past the text's end.
func (p *parser) blockEnd(off int) int {
	for off <= len(p.src) {
		l, next := lineAt(p.src, off)
		off = next
		if endsBlock(l) {
			break
		}
	}
	return off
}

// scan splits the text into items by reference, marking the board rows.
// A line whose first non-blank character is '#' is a board row (unless it
// is a note), and so is a line of board and run-length characters with at
// least one '#'. A line of board characters alone with at least one object
// on it ("  $ ." has no wall, as in a board whose top row is a lone goal
// outside the walls) is one when it touches a board row above or below,
// directly or through more such lines.
func (p *parser) scan() []ref {
	// One allocation: a ref per line at most, a run of blank lines one.
	refs := make([]ref, 0, p.countRefs())
	run := -1           // refs[run:] are a run of lines that are board rows only next to one
	lastStrong := false // the line before is a board row on its own
	for off, line := 0, 1; off <= len(p.src); line++ {
		text, next := lineAt(p.src, off)
		raw := trimBlanks(text)
		strong, weak := classifyRow(raw)
		switch {
		case weak && !strong:
			if run < 0 {
				run = len(refs)
			}
			refs = append(refs, newRef(off, line, lastStrong))
			off = next
			continue
		case run >= 0:
			// A run next to a board row below is board rows too.
			for k := run; k < len(refs); k++ {
				if strong {
					refs[k].lb |= 1
				}
			}
			run = -1
		}
		lastStrong = strong
		if raw == "" && len(refs) > 0 && !refs[len(refs)-1].board() && p.blank(refs[len(refs)-1]) {
			off = next
			continue // one ref stands for a run of blank lines
		}
		refs = append(refs, newRef(off, line, strong))
		if !strong && blockStart(raw) {
			// A Comment: block's lines are its own.
			for end := p.blockEnd(next); next < end; line++ {
				_, next = lineAt(p.src, next)
			}
		}
		off = next
	}
	return refs
}

// countRefs returns the number of lines of the text, a run of blank lines
// counting one.
func (p *parser) countRefs() int {
	n, blank := 0, false
	for off := 0; off <= len(p.src); {
		text, next := lineAt(p.src, off)
		b := strings.TrimSpace(text) == ""
		if !b || !blank {
			n++
		}
		blank, off = b, next
	}
	return n
}

// blank reports whether r is a blank line.
func (p *parser) blank(r ref) bool {
	if r.off < 0 {
		return true
	}
	text, _ := lineAt(p.src, int(r.off))
	return strings.TrimSpace(text) == ""
}

const (
	boardChars = "#@+$*.-_ \t"
	rleChars   = "0123456789()|"
)

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
func (p *parser) assignGap(c *Collection, prev, next *Level, gap []ref) {
	// A level's comment gets at most this gap's text: room for it at
	// once, since a builder grown line by line allocates several times
	// what it ends with.
	span := p.span(gap)
	if prev != nil {
		gap = p.takeSnapshots(prev, gap, next != nil)
	}
	if span > 4<<10 {
		for _, l := range []*Level{prev, next} {
			if l != nil {
				p.builder(l).Grow(span)
			}
		}
	}
	i := 0
	if prev != nil {
		// A ";" line after a board that has a title already starts the
		// next board's lines (a title written right under the board before).
		for ; i < len(gap); i++ {
			k := p.kind(gap[i])
			if k == itemBlank || k == itemSemi && prev.Title != "" {
				break
			}
		}
		prev.Notes = grow(prev.Notes, p.count(gap[:i], itemNote))
		for _, r := range gap[:i] {
			p.attach(prev, p.item(r), true)
		}
		prev.Notes = nilIfEmpty(prev.Notes)
	}
	rest := gap[i:]
	if next == nil {
		// Text after the last board: keep it with that board, never drop it.
		if prev != nil {
			prev.Notes = grow(prev.Notes, p.count(rest, itemNote))
			for _, r := range rest {
				p.attach(prev, p.item(r), false)
			}
			prev.Notes = nilIfEmpty(prev.Notes)
		}
		return
	}
	title := p.lastOf(rest, itemSemi)
	if title < 0 {
		title = p.lastOf(rest, itemText)
	}
	if prev == nil {
		c.Header = grow(c.Header, p.count(rest, itemSemi, itemText))
		c.Notes = grow(c.Notes, p.count(rest, itemNote))
	} else {
		next.Notes = grow(next.Notes, p.count(rest, itemNote))
	}
	defer func() {
		c.Header, c.Notes, next.Notes = nilIfEmpty(c.Header), nilIfEmpty(c.Notes), nilIfEmpty(next.Notes)
	}()
	for k, r := range rest {
		it := p.item(r)
		switch {
		case k == title && next.Title == "":
			next.Title = it.text
		case prev == nil && (it.kind == itemSemi || it.kind == itemText):
			c.Header = append(c.Header, it.text)
		case prev == nil && it.kind == itemNote:
			c.Notes = append(c.Notes, Note{Key: it.key, Value: it.text})
		default:
			p.attach(next, it, false)
		}
	}
}

func (p *parser) lastOf(refs []ref, kind itemKind) int {
	for k := len(refs) - 1; k >= 0; k-- {
		if p.kind(refs[k]) == kind {
			return k
		}
	}
	return -1
}

// grow makes room for n more elements in s at once: appended one by one,
// a long slice allocates several times its final size.
func grow[S ~[]E, E any](s S, n int) S {
	if n > 1 && cap(s)-len(s) < n {
		t := make(S, len(s), len(s)+n)
		copy(t, s)
		return t
	}
	return s
}

// nilIfEmpty keeps a slice that stayed empty nil, as one never grown is.
func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// count returns how many of refs are of kind.
func (p *parser) count(refs []ref, kinds ...itemKind) int {
	n := 0
	for _, r := range refs {
		if slices.Contains(kinds, p.kind(r)) {
			n++
		}
	}
	return n
}

// attach gives one text item to l. A ";" line right after a board is its
// title when it has none.
func (p *parser) attach(l *Level, it item, trailer bool) {
	switch it.kind {
	case itemBlank:
	case itemSemi:
		if trailer && l.Title == "" {
			l.Title = it.text
		} else {
			p.addComment(l, it.text)
		}
	case itemNote:
		if strings.EqualFold(it.key, "Title") {
			// A "Title:" note wins over a ";" title, which is kept as comment.
			if l.Title != "" {
				p.addComment(l, l.Title)
			}
			l.Title = it.text
			return
		}
		l.Notes = append(l.Notes, Note{Key: it.key, Value: it.text})
	default:
		p.addComment(l, it.text)
	}
}

// span returns the bytes of text that refs stand for.
func (p *parser) span(refs []ref) int {
	if len(refs) == 0 {
		return 0
	}
	last := refs[len(refs)-1]
	_, end := p.itemAt(int(last.off), last.line(), last.board())
	return min(end, len(p.src)) - int(refs[0].off)
}

// builder returns the builder of l's comment.
func (p *parser) builder(l *Level) *strings.Builder {
	b := p.comments[l]
	if b == nil {
		b = &strings.Builder{}
		p.comments[l] = b
	}
	return b
}

// addComment adds a line to l's comment.
func (p *parser) addComment(l *Level, s string) {
	b := p.builder(l)
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}
