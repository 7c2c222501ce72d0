// This file holds the Locator: an index of a parsed document's
// declarations by object id, built once, so that placing every finding of
// a large document — each cites object ids — costs a lookup, not a pass
// over the document that hashes every declaration again.

package dli

import "github.com/deloreis/deloreis/objects"

// Locator finds the declarations of one parsed document by the object id
// of what they declare. A document that declares one object twice is
// found at the first declaration.
type Locator struct {
	doc     *Document
	byID    map[objects.ID]int32
	byIdent map[identKey]int32 // built by the first call of Declared
}

// identKey is what a declaration declares by name: its type and its id
// (a rule's name, a functional or inertial declaration's predicate).
type identKey struct {
	typ   objects.Type
	ident string
}

// NewLocator indexes doc's declarations by object id. It hashes each
// declaration once; a declaration whose object does not validate has no
// id and is not indexed.
func NewLocator(doc *Document) *Locator {
	l := &Locator{doc: doc, byID: make(map[objects.ID]int32, len(doc.Decls))}
	for i := range doc.Decls {
		id, err := doc.Decls[i].Object.ID()
		if err != nil {
			continue
		}
		if _, seen := l.byID[id]; !seen {
			l.byID[id] = int32(i)
		}
	}
	return l
}

// Decl returns the declaration of the object whose id is the 64 hex
// digits id, and false when the document does not declare it or id is not
// an object id.
func (l *Locator) Decl(id string) (*Decl, bool) {
	oid, err := objects.ParseID(id)
	if err != nil {
		return nil, false
	}
	i, ok := l.byID[oid]
	if !ok {
		return nil, false
	}
	return &l.doc.Decls[i], true
}

// Declared returns the first declaration of type t that declares ident:
// the id of an entity, event, question, hypothesis or decision, the name
// of a rule, the predicate of a functional or inertial declaration. It is
// for findings that name what they concern rather than cite it (a rule
// finding names its rule), and false for anything else.
func (l *Locator) Declared(t objects.Type, ident string) (*Decl, bool) {
	if l.byIdent == nil {
		l.byIdent = make(map[identKey]int32)
		for i := range l.doc.Decls {
			o := l.doc.Decls[i].Object
			if name, ok := declaredIdent(o); ok {
				k := identKey{o.Type(), name}
				if _, seen := l.byIdent[k]; !seen {
					l.byIdent[k] = int32(i)
				}
			}
		}
	}
	i, ok := l.byIdent[identKey{t, ident}]
	if !ok {
		return nil, false
	}
	return &l.doc.Decls[i], true
}

// declaredIdent returns what o declares by name, if anything.
func declaredIdent(o objects.Object) (string, bool) {
	switch x := o.(type) {
	case *objects.Entity:
		return x.Ident, true
	case *objects.Event:
		return x.Ident, true
	case *objects.Question:
		return x.Ident, true
	case *objects.Hypothesis:
		return x.Ident, true
	case *objects.Decision:
		return x.Ident, true
	case *objects.Rule:
		return x.Name, true
	case *objects.Functional:
		return x.Pred, true
	case *objects.Inertial:
		return x.Pred, true
	}
	return "", false
}

// Place returns where to report something that cites the objects ids (a
// finding's citations): the span of the cited declaration that comes
// first in the document, or of its part at path when path names one (see
// Decl.Find). It reports false when ids cite no declaration of the
// document; the caller then places the finding at the scope line or the
// file.
func (l *Locator) Place(ids []string, path string) (Span, bool) {
	first := -1
	for _, id := range ids {
		oid, err := objects.ParseID(id)
		if err != nil {
			continue
		}
		if i, ok := l.byID[oid]; ok && (first < 0 || int(i) < first) {
			first = int(i)
		}
	}
	if first < 0 {
		return Span{}, false
	}
	d := &l.doc.Decls[first]
	if s, ok := d.Find(path); ok && s.IsValid() {
		return s, true
	}
	if d.Span().IsValid() {
		return d.Span(), true
	}
	return Span{Start: d.Pos, End: d.Pos}, d.Pos.IsValid()
}
