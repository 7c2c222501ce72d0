// MapModules: an in-memory Modules of parsed sources.

package eval

import (
	"sort"

	"github.com/deloreis/deloreis/dke/syntax"
)

// MapModules holds compiled modules in memory, by name.
type MapModules struct {
	files map[string]*syntax.File
}

// NewMapModules returns an empty MapModules.
func NewMapModules() *MapModules { return &MapModules{files: map[string]*syntax.File{}} }

// Put stores (or replaces) a module's parsed source.
func (m *MapModules) Put(name string, f *syntax.File) { m.files[name] = f }

// Module implements Modules.
func (m *MapModules) Module(name string) (*syntax.File, bool) {
	f, ok := m.files[name]
	return f, ok
}

// ScriptNames implements Modules: module.script for every procedure and
// value script, sorted.
func (m *MapModules) ScriptNames() []string {
	var out []string
	for name, f := range m.files {
		for _, s := range f.Stmts {
			if d, ok := s.(*syntax.DefStmt); ok && d.Decorator == nil {
				out = append(out, name+"."+d.Name.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ModuleNames implements Modules.
func (m *MapModules) ModuleNames() []string {
	out := make([]string, 0, len(m.files))
	for n := range m.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// KindModule implements Modules; a kind two modules declare resolves to
// the first by name.
func (m *MapModules) KindModule(kind string) (string, bool) {
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, s := range m.files[n].Stmts {
			if c, ok := s.(*syntax.ClassStmt); ok && c.Name.Name == kind {
				return n, true
			}
		}
	}
	return "", false
}

var _ Modules = (*MapModules)(nil)
