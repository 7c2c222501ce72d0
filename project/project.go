// Package project is the project model: which documents (scopes) a project
// declares, each optionally written in a .dli source file, which dialects
// its naming oracle knows, and where its lorestore lives.
//
// The model has two parts. The declaration travels with the lore: it is
// versioned in the store under project/ (declaration.go), so a clone is
// servable. deloreis.toml is the working folder's own settings (Load):
// which store, branch and pin, and documents and dialects the folder ADDS
// to the lore's declaration. Combine joins the two into the effective
// project and refuses a settings file that contradicts the lore. Find
// locates a project from the current folder or a parent, as git does.
//
// The package does not open the store or parse the sources; it only says
// where they are, and refuses paths that would leave the project folder.
package project

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/lorestore/refs"
	"github.com/deloreis/deloreis/objects"
	toml "github.com/pelletier/go-toml/v2"
)

// FileName is the project file's name, in the project folder.
const FileName = "deloreis.toml"

// Project is a project: from Load, the settings file alone; from Combine,
// the effective project, the lore's declaration with the settings'
// additions.
type Project struct {
	Dir       string             // the project folder (absolute)
	Store     string             // the lorestore (absolute); default <Dir>/.lore
	Branch    string             // the serving branch; default main
	Pin       string             // a commit (revision) the project is pinned to, or ""
	Documents []Document         // sorted by scope
	Dialects  []*objects.Dialect // the naming oracle's dialects ([[dialect]], dialect.go)
	// NoFsync is deloreis.toml's `fsync = false`: the store is written
	// without flushing (lorestore.Options.NoFsync, DL-0414). The default,
	// and `fsync = true`, is durable.
	NoFsync bool

	// loreDialects names the dialects the lore declares (set by Combine),
	// so LocalDialects can tell the settings' additions apart.
	loreDialects map[string]bool
}

// Document is one declared scope.
type Document struct {
	Scope string // the scope id
	// Source is the .dli file the document is written in, or "": in a
	// Project an absolute path, in a Declaration the slash path relative
	// to the project folder that the lore holds.
	Source string
	// InLore says the lore declares the document; false for one that
	// only deloreis.toml adds, which a writer may still commit to the lore.
	InLore bool
}

// file is the TOML shape of deloreis.toml.
type file struct {
	Store    string        `toml:"store"`
	Branch   string        `toml:"branch"`
	Pin      string        `toml:"pin"`
	Fsync    *bool         `toml:"fsync"`
	Document []docFile     `toml:"document"`
	Dialect  []dialectFile `toml:"dialect"`
}

type docFile struct {
	Scope  string `toml:"scope"`
	Source string `toml:"source"`
}

// Load reads dir/deloreis.toml, the working folder's settings. A folder
// without one is a project with the default store and no declared
// documents. The documents and dialects it lists are the folder's own
// additions (InLore false); Combine joins them to the lore's declaration.
func Load(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Project{Dir: abs, Store: filepath.Join(abs, lorestore.DefaultDir), Branch: lorestore.DefaultBranch}
	data, err := os.ReadFile(filepath.Join(abs, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var unknown *toml.StrictMissingError
		if errors.As(err, &unknown) && len(unknown.Errors) > 0 {
			return nil, fmt.Errorf("project: %s: unknown key %s", FileName, strings.Join(unknown.Errors[0].Key(), "."))
		}
		return nil, fmt.Errorf("project: %s: %w", FileName, err)
	}
	if f.Store != "" {
		if p.Store, err = inside(abs, f.Store); err != nil {
			return nil, fmt.Errorf("project: store: %w", err)
		}
	}
	if f.Branch != "" {
		if _, err := refs.BranchRef(f.Branch); err != nil {
			return nil, fmt.Errorf("project: branch: %w", err)
		}
		p.Branch = f.Branch
	}
	if f.Pin != "" {
		if !validPin(f.Pin) {
			return nil, fmt.Errorf("project: pin %q is not a commit id (4 to 40 hex digits)", f.Pin)
		}
		p.Pin = f.Pin
	}
	p.NoFsync = f.Fsync != nil && !*f.Fsync
	seen := map[string]bool{}
	for i, d := range f.Document {
		if !objects.ValidID(d.Scope) {
			return nil, fmt.Errorf("project: document %d: scope %q is not an id", i+1, d.Scope)
		}
		if seen[d.Scope] {
			return nil, fmt.Errorf("project: document %d: scope %q is declared twice", i+1, d.Scope)
		}
		seen[d.Scope] = true
		doc := Document{Scope: d.Scope}
		if d.Source != "" {
			if doc.Source, err = inside(abs, d.Source); err != nil {
				return nil, fmt.Errorf("project: document %s: source: %w", d.Scope, err)
			}
		}
		p.Documents = append(p.Documents, doc)
	}
	sort.Slice(p.Documents, func(i, j int) bool { return p.Documents[i].Scope < p.Documents[j].Scope })
	if p.Dialects, err = dialects(f.Dialect); err != nil {
		return nil, err
	}
	if err := p.checkLinks(); err != nil {
		return nil, err
	}
	return p, nil
}

// inside resolves a path written in the project file against the project
// folder and refuses one that leaves it.
func inside(dir, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q must be relative to the project folder", rel)
	}
	p := filepath.Join(dir, rel)
	if r, err := filepath.Rel(dir, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leaves the project folder", rel)
	}
	return p, nil
}

// Document returns the declared document of a scope.
func (p *Project) Document(scope string) (Document, bool) {
	for _, d := range p.Documents {
		if d.Scope == scope {
			return d, true
		}
	}
	return Document{}, false
}

// validPin accepts a full or abbreviated commit id: a pin names one commit
// for good, never a branch that moves.
func validPin(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	return strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// Create writes dir/deloreis.toml declaring one document per scope, in the
// order given, and refuses when the folder already has one. New projects
// should use CreateSettings and commit their documents to the lore
// (EncodeDocument); Create stays until its callers have moved.
func Create(dir string, scopes []string) error {
	var b strings.Builder
	b.WriteString("# deloreis project: each [[document]] is a scope of the lorestore.\n")
	seen := map[string]bool{}
	for _, sc := range scopes {
		if !objects.ValidID(sc) {
			return fmt.Errorf("project: scope %q is not an id", sc)
		}
		if seen[sc] {
			return fmt.Errorf("project: scope %q is given twice", sc)
		}
		seen[sc] = true
		fmt.Fprintf(&b, "\n[[document]]\nscope = %q\n", sc)
	}
	return writeNew(dir, b.String())
}

// settingsComment is the whole of a new settings file.
const settingsComment = `# deloreis working-folder settings.
#
# The project's documents and dialects are declared in the lore (project/
# in the store) and travel with it: commit them there, not here. This file
# says which store, branch and pin this folder serves, e.g.
#
#   store = ".lore"
#   branch = "main"
#   pin = "<commit>"
#
# A [[document]] or [[dialect]] table here adds to the lore's declaration
# for this folder only; it may never contradict it.
`

// CreateSettings writes dir/deloreis.toml holding only a comment: the
// default store, branch and no pin, and no documents (the caller commits
// the declaration to the lore). It refuses when the folder already has
// one.
func CreateSettings(dir string) error {
	return writeNew(dir, settingsComment)
}

// writeNew writes dir/deloreis.toml with body, creating dir, and refuses
// to overwrite an existing one.
func writeNew(dir, body string) error {
	path := filepath.Join(dir, FileName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("project: %s already exists; edit it, or remove it to start afresh", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
