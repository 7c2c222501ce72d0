// The project's declaration as the lore holds it: the documents (scopes)
// and project-level dialects filed under project/ in every commit's tree
// (lorestore.ProjectFile), so that a clone of a store can be served. This
// file reads those files into a Declaration and encodes the files a
// writer commits:
//
//	project/documents/<scope>.json  {"scope": <scope>, "source"?: "lore/<scope>.dli"}
//	project/dialects/<id>.json      a dialect declaration less its provenance
//
// A source in the lore is a slash-separated path relative to the project
// folder, wherever that folder is checked out; it never leaves it.

package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// Declaration is what the lore declares of its project.
type Declaration struct {
	// Documents, sorted by scope. Source is the slash path relative to
	// the project folder as the lore holds it ("" for none), and InLore
	// is set.
	Documents []Document
	// Dialects, sorted by id, each with the provenance
	// objects.Proposed(DialectOrigin) that configured dialects carry.
	Dialects []*objects.Dialect
}

// ReadDeclaration reads the project files of a snapshot
// (lorestore.Snapshot.ProjectFiles). A file that does not decode, names
// a source outside the project folder, or is given twice is an error
// naming the file.
func ReadDeclaration(files []lorestore.ProjectFile) (*Declaration, error) {
	d := &Declaration{}
	seen := map[string]bool{}
	for _, f := range files {
		where := "project/" + f.Section + "/" + f.Name + ".json"
		if seen[where] {
			return nil, fmt.Errorf("project: the lore's %s is given twice", where)
		}
		seen[where] = true
		switch f.Section {
		case lorestore.ProjectDocuments:
			doc, err := decodeDocument(f.Name, f.Data)
			if err != nil {
				return nil, fmt.Errorf("project: the lore's %s: %w", where, err)
			}
			d.Documents = append(d.Documents, doc)
		case lorestore.ProjectDialects:
			dia, err := decodeDialect(f.Name, f.Data)
			if err != nil {
				return nil, fmt.Errorf("project: the lore's %s: %w", where, err)
			}
			d.Dialects = append(d.Dialects, dia)
		default:
			return nil, fmt.Errorf("project: the lore's %s: %q is not a section of project/ (documents or dialects)", where, f.Section)
		}
	}
	sort.Slice(d.Documents, func(i, j int) bool { return d.Documents[i].Scope < d.Documents[j].Scope })
	sort.Slice(d.Dialects, func(i, j int) bool { return d.Dialects[i].Ident < d.Dialects[j].Ident })
	return d, nil
}

// Document returns the declared document of a scope.
func (d *Declaration) Document(scope string) (Document, bool) {
	for _, doc := range d.Documents {
		if doc.Scope == scope {
			return doc, true
		}
	}
	return Document{}, false
}

// Dialect returns the declared dialect of an id.
func (d *Declaration) Dialect(id string) (*objects.Dialect, bool) {
	for _, x := range d.Dialects {
		if x.Ident == id {
			return x, true
		}
	}
	return nil, false
}

// EncodeDocument returns the canonical JSON of the lore's declaration of
// a document (the file project/documents/<scope>.json). source is the
// .dli file it is written in, a slash path relative to the project
// folder (see Project.LoreSource), or "" for none.
func EncodeDocument(scope, source string) ([]byte, error) {
	if !objects.ValidID(scope) {
		return nil, fmt.Errorf("project: scope %q is not an id", scope)
	}
	m := map[string]string{"scope": scope}
	if source != "" {
		if err := checkLoreSource(source); err != nil {
			return nil, fmt.Errorf("project: document %s: source: %w", scope, err)
		}
		m["source"] = source
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(data)
}

// EncodeDialect returns the canonical JSON of the lore's declaration of a
// dialect (the file project/dialects/<id>.json): its declaration less its
// provenance, which is configuration's, not the lore's. d is validated;
// its own provenance, if any, is not stored.
func EncodeDialect(d *objects.Dialect) ([]byte, error) {
	if d == nil {
		return nil, fmt.Errorf("project: no dialect to encode")
	}
	c := *d
	c.Provenance = objects.Proposed(DialectOrigin)
	data, err := objects.Canonical(&c)
	if err != nil {
		return nil, fmt.Errorf("project: dialect %q: %w", d.Ident, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "provenance")
	if data, err = json.Marshal(m); err != nil {
		return nil, err
	}
	return jcs.Transform(data)
}

// LoreSource is the slash path relative to the project folder of an
// absolute source (a Document's Source in p), as the lore stores it; ""
// for "". A source outside p.Dir is refused.
func (p *Project) LoreSource(source string) (string, error) {
	if source == "" {
		return "", nil
	}
	rel, err := filepath.Rel(p.Dir, source)
	if err != nil || !filepath.IsAbs(source) {
		return "", fmt.Errorf("project: source %q is not a path in the project folder %s", source, p.Dir)
	}
	rel = filepath.ToSlash(rel)
	if err := checkLoreSource(rel); err != nil {
		return "", fmt.Errorf("project: source %q: %w", source, err)
	}
	return rel, nil
}

// decodeDocument reads a document file: a JSON object of "scope" (equal
// to the file's name) and, optionally, "source".
func decodeDocument(name string, data []byte) (Document, error) {
	m, err := members(data, "scope", "source")
	if err != nil {
		return Document{}, err
	}
	doc := Document{InLore: true}
	if err := stringMember(m, "scope", &doc.Scope); err != nil {
		return Document{}, err
	}
	if doc.Scope != name {
		return Document{}, fmt.Errorf("declares scope %q, not %q as its name says", doc.Scope, name)
	}
	if _, ok := m["source"]; ok {
		if err := stringMember(m, "source", &doc.Source); err != nil {
			return Document{}, err
		}
		if err := checkLoreSource(doc.Source); err != nil {
			return Document{}, fmt.Errorf("source: %w", err)
		}
	}
	return doc, nil
}

// decodeDialect reads a dialect file: a dialect declaration less its
// provenance, whose "id" is the file's name.
func decodeDialect(name string, data []byte) (*objects.Dialect, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if _, ok := m["provenance"]; ok {
		return nil, fmt.Errorf("a dialect in the lore carries no provenance; remove the \"provenance\" member")
	}
	prov, err := json.Marshal(map[string]string{"kind": "proposed", "origin": DialectOrigin})
	if err != nil {
		return nil, err
	}
	m["provenance"] = prov
	full, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	o, err := objects.Decode(full)
	if err != nil {
		return nil, fmt.Errorf("not a dialect: %s", firstLine(err.Error()))
	}
	d, ok := o.(*objects.Dialect)
	if !ok {
		return nil, fmt.Errorf("holds a %s, not a dialect", o.Type())
	}
	if d.Ident != name {
		return nil, fmt.Errorf("declares dialect %q, not %q as its name says", d.Ident, name)
	}
	return d, nil
}

// members decodes a JSON object and refuses a member outside known: a
// file written by a newer deloreis is not silently half read.
func members(data []byte, known ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) || json.Unmarshal(data, &m) != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	for k := range m {
		if !contains(known, k) {
			return nil, fmt.Errorf("unknown member %q (only %s; is it from a newer deloreis?)", k, strings.Join(known, ", "))
		}
	}
	return m, nil
}

func stringMember(m map[string]json.RawMessage, key string, out *string) error {
	raw, ok := m[key]
	if !ok {
		return fmt.Errorf("has no %q member", key)
	}
	if err := json.Unmarshal(raw, out); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fmt.Errorf("its %q member is not a string", key)
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// checkLoreSource refuses a source path the lore cannot carry: it must be
// a clean relative slash path that stays inside the project folder on
// every system that checks the lore out.
func checkLoreSource(src string) error {
	switch {
	case src == "":
		return fmt.Errorf("empty path")
	case strings.ContainsRune(src, '\\'):
		return fmt.Errorf("%q has a backslash; write the path with '/'", src)
	case strings.ContainsRune(src, 0):
		return fmt.Errorf("%q has a NUL byte", src)
	case strings.HasPrefix(src, "/") || filepath.IsAbs(filepath.FromSlash(src)) || filepath.VolumeName(filepath.FromSlash(src)) != "":
		return fmt.Errorf("%q must be relative to the project folder", src)
	}
	for _, seg := range strings.Split(src, "/") {
		switch seg {
		case "":
			return fmt.Errorf("%q has an empty segment", src)
		case "..":
			return fmt.Errorf("%q leaves the project folder", src)
		case ".":
			return fmt.Errorf("%q is not clean (a %q segment); write %q", src, ".", path.Clean(src))
		}
	}
	return nil
}
