// What a check knows of the store: the Env interface and the summaries a
// store keeps of each module (ModuleInfo), and an in-memory Env.

package check

import (
	"sort"

	"github.com/deloreis/deloreis/dke/keywords"
)

// Env is what is already stored, as a check sees it. The DKE service
// implements it over the lorestore; MapEnv is an in-memory one.
type Env interface {
	// Module returns the stored module of that name.
	Module(name string) (*ModuleInfo, bool)
	// Kind returns the class declaration of a kind, from whichever module
	// declared it.
	Kind(name string) (*KindInfo, bool)
	// Rules returns every standing rule in the store, for stratification.
	Rules() []RuleInfo
}

// ModuleInfo is the summary of a compiled module that later checks need.
type ModuleInfo struct {
	Name string `json:"name"`
	// Lang is the surface the module was compiled in.
	Lang        keywords.Lang `json:"-"`
	Language    string        `json:"language"`
	Imports     []string      `json:"imports,omitempty"`
	Scripts     []ScriptInfo  `json:"scripts,omitempty"`
	Kinds       []KindInfo    `json:"kinds,omitempty"`
	Rules       []RuleInfo    `json:"rules,omitempty"`
	Constraints []string      `json:"constraints,omitempty"`
}

// Script returns the module's script of that name.
func (m *ModuleInfo) Script(name string) (*ScriptInfo, bool) {
	for i := range m.Scripts {
		if m.Scripts[i].Name == name {
			return &m.Scripts[i], true
		}
	}
	return nil, false
}

// ScriptInfo is a def: its signature, the nodes it calls, and whether it
// writes to the store (directly or through what it calls).
type ScriptInfo struct {
	Name   string  `json:"name"`
	Params []Param `json:"params"`
	// Result is NoValue for a procedure.
	Result Type `json:"result"`
	// Calls are the call-graph nodes the script calls: "module.script"
	// for a script, "@Kind.attribute" for a computed field it reads.
	Calls  []string `json:"calls,omitempty"`
	Writes bool     `json:"writes,omitempty"`
}

// Signature renders the script's call signature, as list prints it:
// module.name(p: type, …) -> result.
func (s *ScriptInfo) Signature(module string) string {
	out := module + "." + s.Name + "("
	for i, p := range s.Params {
		if i > 0 {
			out += ", "
		}
		out += p.Name + ": " + p.Type.String()
	}
	out += ")"
	if s.Result.Tag != TNone {
		out += " -> " + s.Result.String()
	}
	return out
}

// Param is a typed parameter.
type Param struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
}

// KindInfo is a class: a kind's typed attributes and computed fields.
type KindInfo struct {
	Name   string     `json:"name"`
	Module string     `json:"module"`
	Attrs  []AttrInfo `json:"attrs"`
}

// Attr returns the kind's attribute of that name.
func (k *KindInfo) Attr(name string) (*AttrInfo, bool) {
	for i := range k.Attrs {
		if k.Attrs[i].Name == name {
			return &k.Attrs[i], true
		}
	}
	return nil, false
}

// AttrInfo is an attribute; a computed field has Computed set and the
// call-graph nodes its body calls.
type AttrInfo struct {
	Name     string   `json:"name"`
	Type     Type     `json:"type"`
	Computed bool     `json:"computed,omitempty"`
	Calls    []string `json:"calls,omitempty"`
}

// RuleInfo is a standing rule as stratification sees it: the predicates
// ("Kind.attribute") it derives and the ones it reads.
type RuleInfo struct {
	// Name is "module.rule".
	Name  string    `json:"name"`
	Heads []string  `json:"heads"`
	Body  []Literal `json:"body"`
}

// Literal is a predicate a rule reads, and whether it reads its absence.
type Literal struct {
	Pred    string `json:"pred"`
	Negated bool   `json:"negated,omitempty"`
}

// MapEnv is an in-memory Env of module summaries.
type MapEnv struct {
	mods  map[string]*ModuleInfo
	kinds map[string]*KindInfo
}

// NewMapEnv returns an Env holding the given modules. A kind declared by
// two modules resolves to the first.
func NewMapEnv(mods ...*ModuleInfo) *MapEnv {
	e := &MapEnv{mods: map[string]*ModuleInfo{}, kinds: map[string]*KindInfo{}}
	for _, m := range mods {
		e.Put(m)
	}
	return e
}

// Put stores (or replaces) a module.
func (e *MapEnv) Put(m *ModuleInfo) {
	if old, ok := e.mods[m.Name]; ok {
		for i := range old.Kinds {
			if k := e.kinds[old.Kinds[i].Name]; k == &old.Kinds[i] {
				delete(e.kinds, k.Name)
			}
		}
	}
	e.mods[m.Name] = m
	for i := range m.Kinds {
		if _, ok := e.kinds[m.Kinds[i].Name]; !ok {
			e.kinds[m.Kinds[i].Name] = &m.Kinds[i]
		}
	}
}

// Module implements Env.
func (e *MapEnv) Module(name string) (*ModuleInfo, bool) {
	m, ok := e.mods[name]
	return m, ok
}

// Kind implements Env.
func (e *MapEnv) Kind(name string) (*KindInfo, bool) {
	k, ok := e.kinds[name]
	return k, ok
}

// Rules implements Env, in module-name order.
func (e *MapEnv) Rules() []RuleInfo {
	names := make([]string, 0, len(e.mods))
	for n := range e.mods {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []RuleInfo
	for _, n := range names {
		out = append(out, e.mods[n].Rules...)
	}
	return out
}

// Names returns the stored module names, sorted.
func (e *MapEnv) Names() []string {
	out := make([]string, 0, len(e.mods))
	for n := range e.mods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// emptyEnv is the Env of an empty store.
type emptyEnv struct{}

func (emptyEnv) Module(string) (*ModuleInfo, bool) { return nil, false }
func (emptyEnv) Kind(string) (*KindInfo, bool)     { return nil, false }
func (emptyEnv) Rules() []RuleInfo                 { return nil }
