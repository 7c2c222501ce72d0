// A .dli text parsed for an import, held small: a file of millions of
// declarations is parsed in parts on every core, each part's parse tree
// let go as soon as its objects (and their ids, computed beside the
// parse) are taken, so that the compile does not hold a parse tree of the
// whole file beside the world. A finding is placed by parsing again just
// the part holding the declaration it cites (DL-0509).

package author

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// ImportDoc is a parsed .dli text as an import reads it: its scope line,
// its declarations' objects in file order, and the parts it was parsed
// in, to place findings by.
type ImportDoc struct {
	Name     string // the file's name, for errors
	Scope    string // its scope line's scope ("" for none); the import may set it
	ScopePos dli.Pos

	text  string
	parts []docPart
	objs  []objects.Object // every declaration's object, in file order
	// staged are the declarations as world entries, each part's in file
	// order, ids computed with the parse; the staging takes them.
	staged [][]world.Entry
	// keys are the first eight bytes of each declaration's id, in file
	// order (0 for one whose object has no id): a finding's citation is
	// found by them without hashing the file again.
	keys  []uint64
	idErr error // the first declaration, in file order, whose object has no id
	// whole is the document parsed whole, when the import was given one
	// (dli.import's text): its findings are placed in it, and its
	// objects staged as they are.
	whole *dli.Document
}

// wholeDoc is the ImportDoc of a document parsed whole.
func wholeDoc(doc *dli.Document) *ImportDoc {
	return &ImportDoc{Scope: doc.Scope, ScopePos: doc.ScopePos, objs: docObjects(doc), whole: doc}
}

// placed places the findings of the document's staging as placed does.
func (d *ImportDoc) placed(fs []world.Finding) []PlacedFinding {
	if d.whole != nil {
		return placed(d.whole, fs)
	}
	ps := d.place(boundFindings(fs))
	out := make([]PlacedFinding, len(ps))
	for i, p := range ps {
		out[i] = PlacedFinding{Line: p.Pos.Line, Col: p.Pos.Col, Finding: p.Finding}
	}
	return out
}

// docPart is one part of the text parsed alone: whole declarations,
// cut where a line starts one.
type docPart struct {
	start, end int // byte offsets in the text
	line       int // the number of its first line
	first      int // the index of its first declaration
}

// importPartBytes is the size past which a part is cut at the next
// declaration; a variable so that tests cut small texts into many parts.
var importPartBytes = 1 << 20

// ParseImport parses text, the .dli file name, for an import. A text that
// does not parse as parts of it parse (an error anywhere, a scope line
// after a declaration) is parsed whole, so that the errors are those
// dli.Parse reports: a dli.ErrorList.
func ParseImport(name, text string) (*ImportDoc, error) {
	d := &ImportDoc{Name: name, text: text}
	for start, line := 0, 1; start < len(text) || start == 0; {
		end := cutAfter(text, start+importPartBytes)
		d.parts = append(d.parts, docPart{start: start, end: end, line: line})
		line += strings.Count(text[start:end], "\n")
		if end == len(text) {
			break
		}
		start = end
	}
	// parsed is what a part leaves once its parse tree is let go.
	type parsed struct {
		err      error
		scope    string
		scopePos dli.Pos
		entries  []world.Entry
		keys     []uint64
		idErr    error
	}
	out := make([]parsed, len(d.parts))
	var next sync.Mutex
	at := 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(d.parts)) {
		wg.Go(func() {
			for {
				next.Lock()
				i := at
				at++
				next.Unlock()
				if i >= len(d.parts) {
					return
				}
				p, r := d.parts[i], &out[i]
				doc, err := dli.ParseString(name, text[p.start:p.end])
				r.err, r.scope, r.scopePos = err, doc.Scope, doc.ScopePos
				if r.err != nil || i > 0 && r.scope != "" {
					continue
				}
				r.entries = make([]world.Entry, len(doc.Decls))
				r.keys = make([]uint64, len(doc.Decls))
				for j, dc := range doc.Decls {
					id, err := dc.Object.ID()
					if err != nil && r.idErr == nil {
						r.idErr = fmt.Errorf("world: staged %s: %w", dc.Object.Type(), err)
					}
					r.entries[j] = world.Entry{ID: id, Object: dc.Object, Staged: true}
					r.keys[j] = binary.BigEndian.Uint64(id[:8])
				}
			}
		})
	}
	wg.Wait()
	n := 0
	for i := range out {
		if out[i].err != nil || i > 0 && out[i].scope != "" {
			return d.parseWhole()
		}
		d.parts[i].first = n
		n += len(out[i].entries)
	}
	d.Scope, d.ScopePos = out[0].scope, out[0].scopePos
	d.objs, d.keys, d.staged = make([]objects.Object, 0, n), make([]uint64, 0, n), make([][]world.Entry, len(out))
	for i := range out {
		for _, e := range out[i].entries {
			d.objs = append(d.objs, e.Object)
		}
		d.keys = append(d.keys, out[i].keys...)
		d.staged[i] = out[i].entries
		if d.idErr == nil {
			d.idErr = out[i].idErr
		}
		out[i] = parsed{}
	}
	return d, nil
}

// parseWhole parses the text as one, for its errors.
func (d *ImportDoc) parseWhole() (*ImportDoc, error) {
	doc, err := dli.ParseString(d.Name, d.text)
	if err != nil {
		return nil, err
	}
	// Parts of a text that parses whole parse alone; should they not,
	// the whole document's parts are one.
	return importDocOf(d.Name, d.text, doc), nil
}

// importDocOf is the ImportDoc of a document parsed whole from text.
func importDocOf(name, text string, doc *dli.Document) *ImportDoc {
	d := &ImportDoc{Name: name, Scope: doc.Scope, ScopePos: doc.ScopePos, text: text,
		parts: []docPart{{start: 0, end: len(text), line: 1}}}
	entries := make([]world.Entry, len(doc.Decls))
	d.objs, d.keys = make([]objects.Object, len(doc.Decls)), make([]uint64, len(doc.Decls))
	for i, dc := range doc.Decls {
		id, err := dc.Object.ID()
		if err != nil && d.idErr == nil {
			d.idErr = fmt.Errorf("world: staged %s: %w", dc.Object.Type(), err)
		}
		entries[i] = world.Entry{ID: id, Object: dc.Object, Staged: true}
		d.objs[i], d.keys[i] = dc.Object, binary.BigEndian.Uint64(id[:8])
	}
	d.staged = [][]world.Entry{entries}
	return d
}

// cutAfter is where a part that must reach from to past at least at ends:
// the start of the first line at or after at that starts a declaration
// (column 1, not a blank, a comment or a continuation, not a scope line),
// or the end of the text.
func cutAfter(text string, at int) int {
	if at >= len(text) {
		return len(text)
	}
	i := strings.IndexByte(text[at:], '\n')
	for i >= 0 {
		at += i + 1
		if at < len(text) && startsDecl(text[at:]) {
			return at
		}
		i = strings.IndexByte(text[at:], '\n')
	}
	return len(text)
}

// startsDecl reports whether the line opening l starts a declaration: a
// token at column 1 that is not the word scope (a scope line, which only
// the first part may hold).
func startsDecl(l string) bool {
	switch l[0] {
	case ' ', '\t', '#', '\n', '\r':
		return false
	}
	rest, ok := strings.CutPrefix(l, "scope")
	if !ok || rest == "" {
		return true
	}
	switch rest[0] {
	case ' ', '\t', '\n', '\r':
		return false // maybe a scope line: never cut there
	}
	return true
}

// Len is the number of declarations.
func (d *ImportDoc) Len() int { return len(d.objs) }

// Objects are the declarations' objects in file order.
func (d *ImportDoc) Objects() []objects.Object { return d.objs }

// takeStaged hands the declarations over as world entries once, after
// base (the staging owns the result); the first object without an id is
// the error.
func (d *ImportDoc) takeStaged(base []world.Entry) ([]world.Entry, error) {
	if d.idErr != nil {
		return nil, d.idErr
	}
	if d.staged == nil {
		return nil, errors.New("author: the document's declarations were staged already")
	}
	all := make([]world.Entry, len(base), len(base)+len(d.objs))
	copy(all, base)
	for i := range d.staged {
		all = append(all, d.staged[i]...)
		d.staged[i] = nil
	}
	d.staged = nil
	return all, nil
}

// place places the findings as PlaceAll places them in the document
// parsed whole.
func (d *ImportDoc) place(fs []world.Finding) []Placed {
	if len(fs) == 0 {
		return []Placed{}
	}
	pl := &docPlacer{d: d, parsed: map[int]*dli.Document{}, byID: map[objects.ID]int{}}
	pl.locate(fs)
	return placeEach(pl.place, fs)
}

// docPlacer places findings in an ImportDoc: the declarations cited are
// found by id in one pass over the keys, and each part holding one is
// parsed again, once.
type docPlacer struct {
	d      *ImportDoc
	parsed map[int]*dli.Document // by part
	byID   map[objects.ID]int    // a cited id: its first declaration
}

// locate finds the first declaration of every id the findings cite.
func (pl *docPlacer) locate(fs []world.Finding) {
	want := map[uint64][]objects.ID{}
	for _, f := range fs {
		for _, c := range f.Citations {
			if id, err := objects.ParseID(c); err == nil {
				k := binary.BigEndian.Uint64(id[:8])
				want[k] = append(want[k], id)
			}
		}
	}
	if len(want) == 0 {
		return
	}
	for i, k := range pl.d.keys {
		ids, ok := want[k]
		if !ok {
			continue
		}
		id, err := pl.d.objs[i].ID()
		if err != nil {
			continue
		}
		for _, w := range ids {
			if _, seen := pl.byID[w]; w == id && !seen {
				pl.byID[w] = i
			}
		}
	}
}

// place is Placer.Place over the document's parts.
func (pl *docPlacer) place(f world.Finding) dli.Pos {
	first := -1
	for _, c := range f.Citations {
		id, err := objects.ParseID(c)
		if err != nil {
			continue
		}
		if i, ok := pl.byID[id]; ok && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		if name, ok := f.Data["rule"].(string); ok {
			first = pl.rule(name)
		}
	}
	if first < 0 {
		return placeAt(nil, 0, f, pl.d.ScopePos)
	}
	dc, shift := pl.decl(first)
	return placeAt(dc, shift, f, pl.d.ScopePos)
}

// rule is the first declaration of the rule name, or -1.
func (pl *docPlacer) rule(name string) int {
	for i, o := range pl.d.objs {
		if r, ok := o.(*objects.Rule); ok && r.Name == name {
			return i
		}
	}
	return -1
}

// decl is declaration i parsed again with its part, and how many lines
// its positions are above the file's (nil when the part no longer parses
// to it, which cannot happen to a text that parsed).
func (pl *docPlacer) decl(i int) (*dli.Decl, int) {
	parts := pl.d.parts
	p := sort.Search(len(parts), func(j int) bool { return parts[j].first > i }) - 1
	doc, ok := pl.parsed[p]
	if !ok {
		doc, _ = dli.ParseString(pl.d.Name, pl.d.text[parts[p].start:parts[p].end])
		pl.parsed[p] = doc
	}
	j := i - parts[p].first
	if doc == nil || j >= len(doc.Decls) {
		return nil, 0
	}
	return &doc.Decls[j], parts[p].line - 1
}
