// The effective project: the lore's declaration with the settings file's
// additions. The settings may add documents and dialects for this folder,
// and may repeat what the lore declares, but never contradict it: a
// contradiction is an error that says which [[document]] or [[dialect]]
// to remove, since serving either side silently would hide the other.

package project

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/deloreis/deloreis/objects"
)

// Combine returns the effective project of the settings p (from Load) and
// the lore's declaration decl (nil: the lore declares nothing): p's
// store, branch and pin, and the union of both sides' documents and
// dialects. A lore source is resolved against p.Dir, as Load resolves
// the settings' own. Documents the lore declares have InLore set, those
// only p adds do not (LocalDialects tells the same of dialects). p may
// give a source for a scope the lore declares with none (a local path);
// a scope both declare with different sources, or a dialect id both
// declare differently, is an error. p is not changed.
func Combine(p *Project, decl *Declaration) (*Project, error) {
	out := *p
	out.Documents = nil
	out.Dialects = nil
	out.loreDialects = map[string]bool{}
	if decl == nil {
		decl = &Declaration{}
	}

	docs := map[string]Document{}
	for _, d := range decl.Documents {
		if !objects.ValidID(d.Scope) {
			return nil, fmt.Errorf("project: the lore declares scope %q, which is not an id", d.Scope)
		}
		if _, again := docs[d.Scope]; again {
			return nil, fmt.Errorf("project: the lore declares scope %q twice", d.Scope)
		}
		doc := Document{Scope: d.Scope, InLore: true}
		if d.Source != "" {
			if err := checkLoreSource(d.Source); err != nil {
				return nil, fmt.Errorf("project: the lore's document %s: source: %w", d.Scope, err)
			}
			var err error
			if doc.Source, err = inside(p.Dir, filepath.FromSlash(d.Source)); err != nil {
				return nil, fmt.Errorf("project: the lore's document %s: source: %w", d.Scope, err)
			}
		}
		docs[d.Scope] = doc
	}
	for _, d := range p.Documents {
		lore, ok := docs[d.Scope]
		if !ok {
			docs[d.Scope] = Document{Scope: d.Scope, Source: d.Source}
			continue
		}
		switch {
		case lore.Source == "" && d.Source != "":
			// The lore names no file: the folder's own path to it adds to
			// the declaration without contradicting it.
			lore.Source = d.Source
			docs[d.Scope] = lore
		case d.Source != "" && lore.Source != d.Source:
			return nil, fmt.Errorf("project: %s declares scope %s with %s; the lore declares it with %s: remove the [[document]] with scope = %q from %s, or commit the change to the lore",
				FileName, d.Scope, p.describeSource(d.Source), p.describeSource(lore.Source), d.Scope, FileName)
		}
	}
	for _, d := range docs {
		out.Documents = append(out.Documents, d)
	}
	sort.Slice(out.Documents, func(i, j int) bool { return out.Documents[i].Scope < out.Documents[j].Scope })

	dias := map[string]*objects.Dialect{}
	for _, d := range decl.Dialects {
		if _, again := dias[d.Ident]; again {
			return nil, fmt.Errorf("project: the lore declares dialect %q twice", d.Ident)
		}
		dias[d.Ident] = d
		out.loreDialects[d.Ident] = true
	}
	for _, d := range p.Dialects {
		lore, ok := dias[d.Ident]
		if !ok {
			dias[d.Ident] = d
			continue
		}
		same, err := sameDialect(lore, d)
		if err != nil {
			return nil, err
		}
		if !same {
			return nil, fmt.Errorf("project: %s declares dialect %s differently from the lore: remove the [[dialect]] with id = %q from %s, or commit the change to the lore",
				FileName, d.Ident, d.Ident, FileName)
		}
	}
	for _, d := range dias {
		out.Dialects = append(out.Dialects, d)
	}
	sort.Slice(out.Dialects, func(i, j int) bool { return out.Dialects[i].Ident < out.Dialects[j].Ident })
	return &out, nil
}

// LocalDialects lists the dialects of p the lore does not declare: in a
// project from Load every one, in one from Combine those only the
// settings file adds.
func (p *Project) LocalDialects() []*objects.Dialect {
	var out []*objects.Dialect
	for _, d := range p.Dialects {
		if !p.loreDialects[d.Ident] {
			out = append(out, d)
		}
	}
	return out
}

// LocalDocuments lists the documents of p the lore does not declare.
func (p *Project) LocalDocuments() []Document {
	var out []Document
	for _, d := range p.Documents {
		if !d.InLore {
			out = append(out, d)
		}
	}
	return out
}

// sameDialect compares two dialects as the lore would store them: sets
// are sets, and provenance is not part of a dialect's declaration.
func sameDialect(a, b *objects.Dialect) (bool, error) {
	ea, err := EncodeDialect(a)
	if err != nil {
		return false, err
	}
	eb, err := EncodeDialect(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ea, eb), nil
}

// describeSource says what a source is, in a message: its path relative
// to the project folder, or that there is none.
func (p *Project) describeSource(abs string) string {
	if abs == "" {
		return "no source"
	}
	if rel, err := filepath.Rel(p.Dir, abs); err == nil {
		return "source " + filepath.ToSlash(rel)
	}
	return "source " + abs
}
