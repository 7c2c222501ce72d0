// MapModules: an in-memory Modules of parsed sources.

package eval

import (
	"sort"

	"github.com/deloreis/deloreis/dke/syntax"
)

// MapModules holds compiled modules in memory, by name, and for each the
// versions of the modules it imported when it was put.
type MapModules struct {
	files map[string]*syntax.File
	pins  map[string]map[string]*syntax.File
}

// NewMapModules returns an empty MapModules.
func NewMapModules() *MapModules {
	return &MapModules{files: map[string]*syntax.File{}, pins: map[string]map[string]*syntax.File{}}
}

// Put stores (or replaces) a module's parsed source, pinning the current
// versions of the modules it imports.
func (m *MapModules) Put(name string, f *syntax.File) {
	m.files[name] = f
	pins := map[string]*syntax.File{}
	for _, s := range f.Stmts {
		if imp, ok := s.(*syntax.ImportStmt); ok {
			if g, ok := m.files[imp.Name.Name]; ok {
				pins[imp.Name.Name] = g
			}
		}
	}
	m.pins[name] = pins
}

// Import implements Modules.
func (m *MapModules) Import(caller, name string) (*syntax.File, bool) {
	if f, ok := m.pins[caller][name]; ok {
		return f, true
	}
	return m.Module(name)
}

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
