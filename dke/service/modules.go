// Stored modules: the record under dke/<id>/modules/<name>.json, and the
// module set a check (check.Env) and a run (eval.Modules) see.

package service

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
	"github.com/deloreis/deloreis/lorestore"
)

// record is a stored module.
type record struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Language  string            `json:"language"`
	Version   string            `json:"version,omitempty"`
	Created   string            `json:"created"`
	Updated   string            `json:"updated"`
	Authority string            `json:"authority"`
	Manifest  string            `json:"manifest"`
	Installs  *check.ModuleInfo `json:"installs"`
	// Imports pin the source of each module this one imported, as it was
	// when this one was compiled: a call runs that body (contract §9.4).
	Imports []pin `json:"imports"`
	// Forgotten names the declarations forget, forget_rule and
	// forget_constraint removed since the last compile.
	Forgotten []string `json:"forgotten,omitempty"`
}

// pin is an imported module's source at the importer's compile time.
type pin struct {
	Name     string `json:"name"`
	Source   string `json:"source"`
	Language string `json:"language"`
	// Forgotten is the imported module's forgotten list at that time.
	Forgotten []string `json:"forgotten,omitempty"`
}

// Manifest is the version of the compiled form a module record holds,
// reported by info as "manifest version".
const Manifest = "dke-module/1"

// modset is the modules of one store at one commit, parsed.
type modset struct {
	recs  map[string]*record
	files map[string]*syntax.File
	pins  map[string]map[string]*syntax.File
	env   *check.MapEnv
}

// loadModules reads and parses every module of a store.
func loadModules(sn *lorestore.Snapshot, store string) (*modset, error) {
	raw, err := sn.Modules(store)
	if err != nil {
		return nil, err
	}
	ms := &modset{recs: map[string]*record{}, files: map[string]*syntax.File{}, pins: map[string]map[string]*syntax.File{}}
	for name, data := range raw {
		var r record
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("module %s: %w", name, err)
		}
		ms.recs[name] = &r
	}
	if err := ms.index(); err != nil {
		return nil, err
	}
	return ms, nil
}

// index parses the records and builds the check environment.
func (ms *modset) index() error {
	var infos []*check.ModuleInfo
	for _, name := range ms.names() {
		r := ms.recs[name]
		f, err := parseStored(name, r.Source, r.Language, r.Forgotten)
		if err != nil {
			return err
		}
		ms.files[name] = f
		pins := map[string]*syntax.File{}
		for _, p := range r.Imports {
			pf, err := parseStored(p.Name, p.Source, p.Language, p.Forgotten)
			if err != nil {
				return err
			}
			pins[p.Name] = pf
		}
		ms.pins[name] = pins
		infos = append(infos, r.info())
	}
	ms.env = check.NewMapEnv(infos...)
	return nil
}

// info returns the module's summary minus what was forgotten.
func (r *record) info() *check.ModuleInfo {
	in := *r.Installs
	lang, _ := keywords.ParseLang(r.Language)
	in.Lang, in.Language = lang, lang.String()
	gone := func(n string) bool { return slices.Contains(r.Forgotten, n) }
	in.Scripts = slices.DeleteFunc(slices.Clone(in.Scripts), func(s check.ScriptInfo) bool { return gone(s.Name) })
	in.Rules = slices.DeleteFunc(slices.Clone(in.Rules), func(s check.RuleInfo) bool { return gone(ruleLocal(s.Name)) })
	in.Constraints = slices.DeleteFunc(slices.Clone(in.Constraints), func(s string) bool { return gone(ruleLocal(s)) })
	return &in
}

// ruleLocal strips "module." from a rule or constraint name.
func ruleLocal(n string) string {
	for i := range n {
		if n[i] == '.' {
			return n[i+1:]
		}
	}
	return n
}

// parseStored parses a stored source, leaving out forgotten defs.
func parseStored(name, src, language string, forgotten []string) (*syntax.File, error) {
	lang, err := keywords.ParseLang(language)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", name, err)
	}
	f, errs := syntax.Parse(name, src, lang)
	if len(errs) > 0 {
		return nil, fmt.Errorf("module %s: stored source does not parse: %v", name, errs[0])
	}
	if len(forgotten) > 0 {
		f.Stmts = slices.DeleteFunc(slices.Clone(f.Stmts), func(s syntax.Stmt) bool {
			d, ok := s.(*syntax.DefStmt)
			return ok && slices.Contains(forgotten, d.Name.Name)
		})
	}
	return f, nil
}

func (ms *modset) names() []string {
	out := make([]string, 0, len(ms.recs))
	for n := range ms.recs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Module implements eval.Modules.
func (ms *modset) Module(name string) (*syntax.File, bool) {
	f, ok := ms.files[name]
	return f, ok
}

// Import implements eval.Modules: the version caller was compiled with.
func (ms *modset) Import(caller, name string) (*syntax.File, bool) {
	if f, ok := ms.pins[caller][name]; ok {
		return f, true
	}
	return ms.Module(name)
}

// ModuleNames implements eval.Modules.
func (ms *modset) ModuleNames() []string { return ms.names() }

// ScriptNames implements eval.Modules: module.script, sorted.
func (ms *modset) ScriptNames() []string {
	var out []string
	for _, n := range ms.names() {
		for _, s := range ms.recs[n].info().Scripts {
			out = append(out, n+"."+s.Name)
		}
	}
	return out
}

// KindModule implements eval.Modules: the first module by name that
// declares the kind.
func (ms *modset) KindModule(kind string) (string, bool) {
	for _, n := range ms.names() {
		for _, k := range ms.recs[n].Installs.Kinds {
			if k.Name == kind {
				return n, true
			}
		}
	}
	return "", false
}

// referrers lists the other modules that import name, sorted.
func (ms *modset) referrers(name string) []string {
	var out []string
	for _, n := range ms.names() {
		if n == name {
			continue
		}
		if slices.Contains(ms.recs[n].Installs.Imports, name) {
			out = append(out, n)
		}
	}
	return out
}
