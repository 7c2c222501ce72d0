// This file holds the parser's frame: Parse, the line structure of a
// document (header, comments, blank lines, the scope line, declarations and
// their indented continuation lines), error recovery, and the small token
// helpers the declaration parsers share.

package dli

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deloreis/deloreis/objects"
)

// Parse reads a .dli document. filename is used only in error messages.
//
// It returns the Document and, when the source has problems, an ErrorList
// of all of them, sorted by position, at most one per line. The parser
// recovers from an error by skipping to the next line that starts a
// declaration, so one call reports every independent problem. With errors,
// the Document holds the declarations that parsed cleanly.
func Parse(filename string, src []byte) (*Document, error) {
	if len(src) > maxSource {
		return tooLong(filename, len(src))
	}
	return ParseString(filename, string(src))
}

// tooLong is the refusal of a source of n bytes, past maxSource.
func tooLong(filename string, n int) (*Document, error) {
	var errs ErrorList
	errs.Add(filename, Pos{Line: 1, Col: 1}, "the source is "+itoa(n)+" bytes; a .dli file is at most "+itoa(maxSource))
	return &Document{}, errs.Err()
}

// ParseString is Parse of a text held as a string, which the document
// (its objects' strings and its position table) refers to without a copy:
// a caller that parses a large text in parts parses substrings of it.
func ParseString(filename string, text string) (*Document, error) {
	if len(text) > maxSource {
		return tooLong(filename, len(text))
	}
	p := &parser{filename: filename}
	p.doc = &Document{Decls: make([]Decl, 0, estimateDecls(text))}
	p.tab = &spanTable{src: text, enc: make([]byte, 0, len(text)/3+16)}
	p.s.init(text, p.errorAt)
	p.parseFile()
	p.errs.RemoveMultiples()
	return p.doc, p.errs.Err()
}

// estimateDecls guesses how many declarations src holds: the lines that
// start with something other than a blank or a comment, at most 1<<20 (a
// longer list grows as it fills).
func estimateDecls(src string) int {
	n := 0
	for line := src; line != "" && n < 1<<20; {
		if c := line[0]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' {
			n++
		}
		i := strings.IndexByte(line, '\n')
		if i < 0 {
			break
		}
		line = line[i+1:]
	}
	return n
}

// parser holds the state of one parse.
type parser struct {
	filename string
	s        scanner
	tok      token // the current token
	ahead    token // the token after tok, when hasAhead
	hasAhead bool
	errs     ErrorList
	doc      *Document
	pending  []Comment // comments not yet attached to an item
	blank    bool      // a blank line since the last item
	items    int       // items seen so far: header, comments, scope, declarations
	chunk    chunk     // slabs the declaration objects are carved from
	tab      *spanTable
	offs     []int32                         // start and end offsets of the declaration being read and its parts
	lastEnd  int                             // the end offset of the last token taken that is not a newline or comment
	provs    map[provKey]*objects.Provenance // the provenances read so far, to share (shareProv)
	shareds  *[wordSlots]string              // recent keys and relation names, to share (shared)
}

// wordSlots is how many keys and relation names a parser remembers.
const wordSlots = 256

// shared returns s, or an earlier key or relation name equal to it: the
// facts of one key then share its bytes, which every later reader of the
// key (the lowering's predicate lookup, the world file's string table)
// finds in the cache instead of at the fact's own place in the source,
// a cache miss per fact in an import of millions. The table is
// direct-mapped, so what it holds is bounded.
func (p *parser) shared(s string) string {
	if len(s) > 64 {
		return s
	}
	if p.shareds == nil {
		p.shareds = new([wordSlots]string)
	}
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	slot := &p.shareds[h%wordSlots]
	if *slot != s {
		*slot = s
	}
	return *slot
}

// errorAt records an error.
func (p *parser) errorAt(pos Pos, msg string) {
	p.errs.Add(p.filename, pos, msg)
}

// next moves to the next token.
func (p *parser) next() {
	if k := p.tok.kind; k != tNewline && k != tComment && k != tEOF {
		p.lastEnd = p.tok.end
	}
	if p.hasAhead {
		p.tok, p.hasAhead = p.ahead, false
		return
	}
	p.tok = p.s.next()
}

// peek returns the token after the current one.
func (p *parser) peek() token {
	if !p.hasAhead {
		p.ahead, p.hasAhead = p.s.next(), true
	}
	return p.ahead
}

// leaf records the span of token t as the next part of the declaration
// being read.
func (p *parser) leaf(t token) {
	p.offs = append(p.offs, int32(t.off), int32(t.end))
}

// open records the start of a part that begins at token t and spans
// several tokens, returning where close sets its end.
func (p *parser) open(t token) int {
	p.offs = append(p.offs, int32(t.off), 0)
	return len(p.offs) - 1
}

// close ends the part open returned i for at the last token taken.
func (p *parser) close(i int) {
	p.offs[i] = int32(p.lastEnd)
}

// atLineEnd reports whether the current token ends a line.
func (p *parser) atLineEnd() bool {
	return p.tok.kind == tNewline || p.tok.kind == tEOF
}

// skipLine moves past the end of the current line.
func (p *parser) skipLine() {
	for !p.atLineEnd() {
		p.next()
	}
	if p.tok.kind == tNewline {
		p.next()
	}
}

// endLine expects the end of the line after what, and moves past it; a
// provenance could stand there too when orProv is set. On anything else it
// reports the error and skips the rest of the line.
func (p *parser) endLine(what string, orProv bool) bool {
	if p.atLineEnd() {
		if p.tok.kind == tNewline {
			p.next()
		}
		return true
	}
	switch {
	case p.tok.kind == tComment:
		p.errorAt(p.tok.pos, "a comment must be on a line of its own, not after "+what)
	case orProv:
		p.errExpected("provenance (`proposed`, `hypothesis` or `cited`) or end of line after ", what)
	default:
		p.errExpected("end of line after ", what)
	}
	p.skipLine()
	return false
}

// errExpected reports that what was expected at the current token. An
// illegal token was reported when it was scanned and is not reported
// again.
func (p *parser) errExpected(what ...string) {
	if p.tok.kind != tIllegal {
		p.errorAt(p.tok.pos, "expected "+strings.Join(what, "")+", found "+p.tok.describe())
	}
}

// blankBefore returns whether a blank line separates the next item from
// the one before, and counts the item.
func (p *parser) blankBefore() bool {
	b := p.blank && p.items > 0
	p.blank = false
	p.items++
	return b
}

// takePending returns the unattached comments and clears them.
func (p *parser) takePending() []Comment {
	c := p.pending
	p.pending = nil
	return c
}

// parseFile reads the whole document.
func (p *parser) parseFile() {
	p.next()
	p.header()
	for p.tok.kind != tEOF {
		p.line()
	}
	p.doc.Trailing = p.takePending()
}

// header reads the grammar header, when the first non-blank line is one.
func (p *parser) header() {
	for p.tok.kind == tNewline {
		p.next()
	}
	if p.tok.kind != tComment {
		return
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(p.tok.text, " \t"), "grammar:")
	if !ok {
		return
	}
	fields := strings.Fields(rest)
	switch {
	case len(fields) == 0:
		p.errorAt(p.tok.pos, "the grammar header names no version: expected `# grammar: v0`")
	case fields[0] != Grammar:
		p.errorAt(p.tok.pos, "unsupported grammar `"+shorten(fields[0])+"`: this parser reads v0")
	}
	p.doc.Grammar, p.doc.HeaderPos = Grammar, p.tok.pos
	p.doc.HeaderSpan = Comment{Pos: p.tok.pos, Offset: p.tok.off, Text: p.tok.text}.Span()
	p.items++
	p.next()
	if p.tok.kind == tNewline {
		p.next()
	}
}

// line reads one line at the top level: a blank line, a comment, the scope
// line or a declaration with its continuation lines.
func (p *parser) line() {
	switch p.tok.kind {
	case tNewline:
		p.blank = true
		p.next()
		return
	case tComment:
		p.pending = append(p.pending, Comment{Pos: p.tok.pos, Offset: p.tok.off, Text: p.tok.text, Blank: p.blankBefore()})
		p.next()
		if p.tok.kind == tNewline {
			p.next()
		}
		return
	}
	if p.tok.pos.Col != 1 {
		p.strayIndented()
		return
	}
	if p.tok.kind == tSymbol && p.tok.text == kwScope && p.peek().kind != tDot && p.peek().kind != tLParen {
		p.scopeLine()
		return
	}
	p.decl()
}

// strayIndented reports an indented line that continues no declaration.
func (p *parser) strayIndented() {
	t := p.tok
	switch {
	case t.kind == tSymbol && t.text == kwOption:
		p.errorAt(t.pos, "`option` line outside a question: options are indented below their `question` line")
	case t.kind == tSymbol && t.text == kwClaim:
		p.errorAt(t.pos, "`claim` line outside a ratify declaration")
	case t.kind == tSymbol && isProvenanceWord(t.text):
		p.errorAt(t.pos, "provenance line with no declaration above it")
	case t.kind != tIllegal:
		p.errorAt(t.pos, "unexpected indentation: a declaration starts at column 1")
	}
	p.skipLine()
	p.continuation(nil)
}

// scopeLine reads `scope <id>`. A scope line has no continuation lines:
// an indented line below it is reported as stray, unless the scope line
// itself did not parse.
func (p *parser) scopeLine() {
	pos, off, mark := p.tok.pos, p.tok.off, len(p.offs)
	p.next()
	id, ok := p.ident("scope id after `scope`")
	var idSpan Span
	if ok {
		// The id is not a part of a declaration: take its offsets back.
		start, end := int(p.offs[mark]), int(p.offs[mark+1])
		p.offs = p.offs[:mark]
		idSpan = spanOf(p.tab.src, advance(p.tab.src, pos, off, start), start, end)
	}
	if ok {
		ok = p.endLine("the scope id", false)
	} else {
		p.skipLine()
	}
	switch {
	case !ok:
		p.continuation(nil)
	case p.doc.Scope != "":
		p.errorAt(pos, "second scope line: this document's scope is `"+p.doc.Scope+"`, declared at line "+itoa(p.doc.ScopePos.Line))
	case len(p.doc.Decls) > 0:
		p.errorAt(pos, "the scope line must come before the first declaration")
	default:
		p.doc.Scope, p.doc.ScopePos = id, pos
		p.doc.ScopeSpan, p.doc.ScopeIDSpan = spanOf(p.tab.src, pos, off, idSpan.EndOffset), idSpan
		p.doc.Leading = p.takePending()
		p.doc.ScopeBlank = p.blankBefore()
	}
}

// declState is a declaration being read: its object and the places its
// continuation lines fill.
type declState struct {
	pos       Pos
	what      string // the declaration, for messages: "entity", "before", …
	obj       objects.Object
	prov      **objects.Provenance // the object's provenance field; nil when it takes none
	provOpt   bool                 // the provenance may be absent (a decision)
	hasProv   bool
	options   *[]objects.Option   // a question's options
	optionIDs map[string]struct{} // a long question's option ids
	claims    *[]objects.ID       // ratify carriage's claims
	failed    bool
}

// decl reads one declaration starting at column 1, with its continuation
// lines, and appends it to the document when it has no error.
func (p *parser) decl() {
	d := declState{pos: p.tok.pos}
	p.offs = p.offs[:0]
	p.open(p.tok)
	comments := p.takePending()
	blank := p.blankBefore()
	ok := p.head(&d)
	if ok && p.tok.kind == tSymbol && isProvenanceWord(p.tok.text) {
		if d.prov == nil {
			p.errorAt(p.tok.pos, "a "+d.what+" carries no provenance")
			ok = false
		} else {
			ok = p.provenance(&d)
		}
	}
	if ok {
		ok = p.endLine(d.what, d.prov != nil && !d.hasProv)
	} else {
		p.skipLine()
	}
	d.failed = !ok
	if d.obj == nil {
		p.continuation(nil)
		return
	}
	comments = append(comments, p.continuation(&d)...)
	p.close(1)
	if d.failed || !p.complete(&d) {
		return
	}
	at := p.tab.appendRun(p.offs)
	p.doc.Decls = append(p.doc.Decls, Decl{Pos: d.pos, Object: d.obj, Comments: comments, Blank: blank, tab: p.tab, at: at})
}

// complete checks a declaration whose lines all parsed: its required
// parts, then the object's own validation, reported at the declaration.
func (p *parser) complete(d *declState) bool {
	if d.prov != nil && !d.provOpt && !d.hasProv {
		p.errorAt(d.pos, "missing provenance for "+d.what+": expected `proposed`, `hypothesis` or `cited` "+
			"at the end of the line or on an indented line below it")
		return false
	}
	if d.claims != nil && len(*d.claims) == 0 {
		p.errorAt(d.pos, "ratify names no claims: expected an indented `claim <object-id>` line below it")
		return false
	}
	if x, ok := d.obj.(*objects.Decision); ok && !d.hasProv {
		x.Provenance = nil
	}
	if err := d.obj.Validate(); err != nil {
		p.errorAt(p.fieldPos(d, err), err.Error())
		return false
	}
	return true
}

// fieldPos returns the position of the part of declaration d that a
// validation error concerns, or of the declaration when the error names
// no part of it.
func (p *parser) fieldPos(d *declState, err error) Pos {
	var fe *objects.FieldError
	if !errors.As(err, &fe) {
		return d.pos
	}
	i := partIndex(partPaths(d.obj), fe.Field)
	if k := 2 + 2*i; i >= 0 && k < len(p.offs) {
		return advance(p.tab.src, d.pos, int(p.offs[0]), int(p.offs[k]))
	}
	return d.pos
}

// continuation reads the indented lines that continue a declaration, and
// returns the comment lines met among them. With d nil the indented lines
// are skipped: they continue a line that did not parse. Comments and blank
// lines after the last continuation line are left pending for the next
// item.
func (p *parser) continuation(d *declState) []Comment {
	var inner []Comment
	for {
		var held []Comment
		blank := false
		for p.tok.kind == tNewline || p.tok.kind == tComment {
			if p.tok.kind == tNewline {
				blank = true
				p.next()
				continue
			}
			held = append(held, Comment{Pos: p.tok.pos, Offset: p.tok.off, Text: p.tok.text, Blank: blank})
			blank = false
			p.next()
			if p.tok.kind == tNewline {
				p.next()
			}
		}
		if p.tok.kind == tEOF || p.tok.pos.Col == 1 {
			for i := range held {
				held[i].Blank = held[i].Blank && p.items > 0
				p.items++
			}
			p.pending = append(p.pending, held...)
			p.blank = p.blank || blank
			return inner
		}
		for _, c := range held {
			c.Blank = false
			inner = append(inner, c)
		}
		if d == nil {
			p.skipLine()
			continue
		}
		p.continuationLine(d)
	}
}

// continuationLine reads one indented line of declaration d: an option, a
// ratified claim or the provenance.
func (p *parser) continuationLine(d *declState) {
	t := p.tok
	ok := false
	switch {
	case t.kind == tSymbol && t.text == kwOption && d.options != nil:
		ok = p.option(d)
	case t.kind == tSymbol && t.text == kwClaim && d.claims != nil:
		ok = p.ratifiedClaim(d)
	case t.kind == tSymbol && isProvenanceWord(t.text) && d.prov != nil:
		if d.hasProv {
			p.errorAt(t.pos, "second provenance for "+d.what+": a declaration has one")
		} else {
			ok = p.provenance(d)
		}
	default:
		p.errExpected(continuationWant(d))
	}
	if ok {
		ok = p.endLine(d.what+" continuation", false)
	} else {
		p.skipLine()
	}
	if !ok {
		d.failed = true
	}
}

// continuationWant says what an indented line below d may hold.
func continuationWant(d *declState) string {
	switch {
	case d.options != nil:
		return "`option` on an indented line below a question"
	case d.claims != nil:
		return "`claim` on an indented line below ratify"
	case d.prov != nil:
		return "provenance (`proposed`, `hypothesis` or `cited`) on an indented line below " + d.what
	}
	return "a declaration at column 1: " + d.what + " has no indented lines"
}

// provenance reads a provenance clause into d.
func (p *parser) provenance(d *declState) bool {
	word := p.tok.text
	clause := p.open(p.tok)
	p.leaf(p.tok)
	p.next()
	var ok bool
	switch word {
	case kwProposed:
		var origin string
		if origin, ok = p.ident("origin after `proposed`"); ok {
			*d.prov = p.shareProv(*objects.Proposed(origin))
		}
	case kwHypothesis:
		var hyp string
		if hyp, ok = p.ident("hyp variable after `hypothesis`"); ok {
			*d.prov = p.shareProv(*objects.Hypothetical(hyp))
		}
	default:
		ok = p.cited(d.prov)
	}
	p.close(clause)
	d.hasProv = ok
	return ok
}

// provKey is a provenance as a map key: the decisions, in order, joined
// by NUL (no id holds one).
type provKey struct {
	kind, origin, hyp, state, decisions string
}

// maxSharedProvs bounds the provenances a parser remembers: a document
// rarely has more than a handful of distinct ones.
const maxSharedProvs = 1024

// shareProv returns pr, or an equal provenance read earlier in the
// document: the objects of one session then hold one provenance, not one
// each (DL-0352). Provenances are never written once attached. pr is
// taken by value and copied to the heap only when it is new: a file of
// millions of declarations of one session made a garbage provenance each.
func (p *parser) shareProv(pr objects.Provenance) *objects.Provenance {
	k := provKey{string(pr.Kind), pr.Origin, pr.Hyp, string(pr.State), strings.Join(pr.Decisions, "\x00")}
	if q, ok := p.provs[k]; ok {
		return q
	}
	if p.provs == nil || len(p.provs) >= maxSharedProvs {
		p.provs = make(map[provKey]*objects.Provenance)
	}
	q := new(objects.Provenance)
	*q = pr
	p.provs[k] = q
	return q
}

// cited reads the rest of `cited <decision>[, <decision>…] <state>`.
func (p *parser) cited(prov **objects.Provenance) bool {
	decisions := make([]string, 0, 2)
	what := "decision id after `cited`"
	for {
		id, ok := p.ident(what)
		if !ok {
			return false
		}
		decisions = append(decisions, id)
		if p.tok.kind != tComma {
			break
		}
		p.next()
		what = "decision id after `,`"
	}
	if p.tok.kind != tSymbol || (p.tok.text != string(objects.CitedProvisional) && p.tok.text != string(objects.CitedRatified)) {
		p.errExpected("`provisional` or `ratified` after the cited decisions")
		return false
	}
	*prov = p.shareProv(*objects.Cited(objects.CitedState(p.tok.text), decisions...))
	p.leaf(p.tok)
	p.next()
	return true
}

// ident reads an id; the parts of what name it for the error message.
func (p *parser) ident(what ...string) (string, bool) {
	if p.tok.kind != tSymbol {
		p.errExpected(what...)
		return "", false
	}
	s := p.tok.text
	if !symbolIsID(s) {
		p.errorAt(p.tok.pos, invalidID(s))
		return "", false
	}
	p.leaf(p.tok)
	p.next()
	return s, true
}

// symbolIsID reports whether a symbol is a valid id. The scanner made the
// symbol of id characters only (letters, digits, marks, '-' and '_'), so
// what objects.ValidID could still refuse is a first character that is not
// a letter or digit, and the length.
func symbolIsID(s string) bool {
	if s == "" || len(s) > objects.MaxIDLen {
		return false
	}
	if c := s[0]; c < utf8.RuneSelf {
		return ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// invalidID says why a symbol is not a valid id.
func invalidID(s string) string {
	if len(s) > objects.MaxIDLen {
		return "id `" + shorten(s) + "` is " + itoa(len(s)) + " bytes; an id is at most " + itoa(objects.MaxIDLen)
	}
	return "`" + shorten(s) + "` is not a valid id: an id starts with a letter or digit"
}

// text reads a quoted string of non-empty free text.
func (p *parser) text(what string) (string, bool) {
	if p.tok.kind != tString || p.tok.text == "" {
		p.errExpected(what)
		return "", false
	}
	s := p.tok.text
	p.leaf(p.tok)
	p.next()
	return s, true
}

// value reads a value: a symbol, or a quoted non-empty string.
func (p *parser) value(what ...string) (string, bool) {
	if (p.tok.kind != tSymbol && p.tok.kind != tString) || p.tok.text == "" {
		p.errExpected(what...)
		return "", false
	}
	s := p.tok.text
	p.leaf(p.tok)
	p.next()
	return s, true
}

// word expects the keyword kw after what.
func (p *parser) word(kw, after string) bool {
	if p.tok.kind != tSymbol || p.tok.text != kw {
		p.errExpected("`", kw, "` after ", after)
		return false
	}
	p.next()
	return true
}

// want expects a token of kind k; the parts of what say where.
func (p *parser) want(k tokenKind, what ...string) bool {
	if p.tok.kind != k {
		p.errExpected(what...)
		return false
	}
	p.next()
	return true
}
