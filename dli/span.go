// This file holds source spans: Span, the range of a node, and the
// position table through which a declaration finds the span of each of its
// parts by path ("from", "provenance.decisions[1]",
// "body[0].atom.args[1]", "options[2].id", …). The table stores each span
// as two varints, its start after the previous part's start and its
// length, which is two or three bytes a part; lines and columns are
// computed when asked for. So the spans of a large document cost little
// memory.

package dli

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Span is the source range of a node: its first character and the
// position just after its last one, as line:col and as byte offsets. The
// zero Span is no span.
type Span struct {
	Start, End             Pos
	StartOffset, EndOffset int // byte offsets of Start and End in the source
}

// IsValid reports whether s is a span.
func (s Span) IsValid() bool { return s.Start.IsValid() }

// String returns "line:col-line:col", or "-" for the zero Span.
func (s Span) String() string {
	if !s.IsValid() {
		return "-"
	}
	return s.Start.String() + "-" + s.End.String()
}

// Part is one part of a declaration and its span.
type Part struct {
	Path string // see Decl.Find
	Span Span
}

// spanTable is the position table of one parsed document: the source, and
// for each declaration a run of uvarints: how many parts it has, the
// declaration's start offset and length, then for each part in source
// order (the order partPaths names them) its start less the previous
// start and its length. Parts start in source order, so no difference is
// negative. The count lets a declaration whose object was changed after
// the parse refuse to name parts it no longer has the offsets of.
type spanTable struct {
	src string
	enc []byte
}

// maxSource is the largest source Parse reads: the parser keeps offsets
// as int32.
var maxSource = 1<<31 - 1

// appendRun encodes the offsets of one declaration, start and end pairs
// of the declaration and then of each part, and returns where the run
// starts.
func (t *spanTable) appendRun(offs []int32) int {
	at := len(t.enc)
	t.enc = binary.AppendUvarint(t.enc, uint64(len(offs)/2-1))
	prev := offs[0]
	for i := 0; i+1 < len(offs); i += 2 {
		start := offs[i]
		if i == 0 {
			t.enc = binary.AppendUvarint(t.enc, uint64(start))
		} else {
			t.enc = binary.AppendUvarint(t.enc, uint64(start-prev))
		}
		t.enc = binary.AppendUvarint(t.enc, uint64(offs[i+1]-start))
		prev = start
	}
	return at
}

// runReader decodes a run of the table.
type runReader struct {
	enc   []byte
	start int
}

// next returns the next span's offsets.
func (r *runReader) next() (start, end int) {
	d, n := binary.Uvarint(r.enc)
	l, m := binary.Uvarint(r.enc[n:])
	r.enc = r.enc[n+m:]
	r.start += int(d)
	return r.start, r.start + int(l)
}

// Span returns the span of the whole declaration, from its first
// character to the end of its last token (continuation lines included,
// comments not). It is the zero Span for a Decl not made by Parse.
func (d *Decl) Span() Span {
	if d.tab == nil {
		return Span{}
	}
	r := d.reader()
	return d.span(r.next())
}

// Find returns the span of one part of the declaration, named by the path
// objects.FieldError uses for the field: "" is the whole declaration;
// otherwise the lowercase JSON member of the object ("id", "name",
// "entity", "key", "value", "relation", "from", "to", "era", "earlier",
// "later", "left", "right", "prompt", "statement", "pred", "since",
// "until", "rationale", "attacker", "target", "claim", "standing",
// "decision", and "kind" for an entity's kind keyword), indexed and
// nested as in "options[2].id", "options[0].label",
// "options[1].implies.args[0]", "head.pred", "body[0].atom.args[1]",
// "claims[1]", "provenance.decisions[1]". "provenance", "options[i]",
// "head", "body[i]" (with its `not`), "body[i].atom" and
// "options[i].implies" span the whole clause; "provenance.kind" is the
// provenance keyword and "provenance.state" the cited state. A path
// ending in ".var" or ".const" finds its term. Find reports false for a
// path the declaration does not have, and for a Decl not made by Parse.
func (d *Decl) Find(path string) (Span, bool) {
	if d.tab == nil {
		return Span{}, false
	}
	paths := partPaths(d.Object)
	i := partIndex(paths, path)
	if i < -1 || (i >= 0 && len(paths) != d.parts()) {
		return Span{}, false
	}
	r := d.reader()
	start, end := r.next()
	for ; i >= 0; i-- {
		start, end = r.next()
	}
	return d.span(start, end), true
}

// partIndex returns the place of path among the part paths of a
// declaration, -1 for the whole declaration, and -2 when it has no part at
// path. A term's ".var" or ".const" finds the term.
func partIndex(paths []string, path string) int {
	if path == "" {
		return -1
	}
	for _, suffix := range [...]string{".var", ".const"} {
		if p, ok := strings.CutSuffix(path, suffix); ok && strings.HasSuffix(p, "]") {
			path = p
		}
	}
	for i, p := range paths {
		if p == path {
			return i
		}
	}
	return -2
}

// Parts returns every part of the declaration with its span, in source
// order; nil for a Decl not made by Parse.
func (d *Decl) Parts() []Part {
	if d.tab == nil {
		return nil
	}
	paths := partPaths(d.Object)
	if len(paths) != d.parts() {
		return nil
	}
	parts := make([]Part, len(paths))
	r := d.reader()
	r.next()
	for i, p := range paths {
		parts[i] = Part{Path: p, Span: d.span(r.next())}
	}
	return parts
}

// parts returns how many parts the declaration had when it was parsed.
func (d *Decl) parts() int {
	n, _ := binary.Uvarint(d.tab.enc[d.at:])
	return int(n)
}

// reader returns a reader of the declaration's run, at its span.
func (d *Decl) reader() runReader {
	_, n := binary.Uvarint(d.tab.enc[d.at:])
	return runReader{enc: d.tab.enc[d.at+n:]}
}

// span returns the span of src[start:end], within the declaration.
func (d *Decl) span(start, end int) Span {
	r := d.reader()
	base, _ := r.next()
	if start < base || end < start || end > len(d.tab.src) {
		return Span{} // not offsets of this declaration: never from Parse
	}
	from := advance(d.tab.src, d.Pos, base, start)
	return Span{Start: from, End: advance(d.tab.src, from, start, end), StartOffset: start, EndOffset: end}
}

// advance returns the position of byte offset off of src, given the
// position from of an earlier offset base on the same or an earlier line.
// Columns count characters, as the scanner does.
func advance(src string, from Pos, base, off int) Pos {
	seg := src[base:off]
	nl := strings.LastIndexByte(seg, '\n')
	if nl < 0 {
		return Pos{Line: from.Line, Col: from.Col + utf8.RuneCountInString(seg)}
	}
	return Pos{Line: from.Line + strings.Count(seg, "\n"), Col: 1 + utf8.RuneCountInString(seg[nl+1:])}
}

// Span returns the comment's span, from '#' to its last character that is
// not a space or tab; the zero Span for a Comment not made by Parse.
func (c Comment) Span() Span {
	if !c.Pos.IsValid() {
		return Span{}
	}
	n := 1 + len(c.Text)
	return Span{
		Start:       c.Pos,
		End:         Pos{Line: c.Pos.Line, Col: c.Pos.Col + 1 + utf8.RuneCountInString(c.Text)},
		StartOffset: c.Offset,
		EndOffset:   c.Offset + n,
	}
}

// spanOf returns the span of src[start:end], on the line of from, which is
// the position of start.
func spanOf(src string, from Pos, start, end int) Span {
	return Span{Start: from, End: advance(src, from, start, end), StartOffset: start, EndOffset: end}
}

// index returns name[i].
func index(name string, i int) string {
	return name + "[" + strconv.Itoa(i) + "]"
}
