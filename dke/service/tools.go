// compile and run: the two source-carrying tools.

package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

// CompileParams are compile's arguments (contract §4.1).
type CompileParams struct {
	Name     string  `json:"name" desc:"the module's name: an identifier import accepts (no dot, no hyphen)"`
	Source   *string `json:"source,omitempty" desc:"the module text; omit to reload the stored module (re-run its body)"`
	Version  *string `json:"version,omitempty" desc:"your label for this revision, compared for equality; omitted keeps the recorded one"`
	Language Surface `json:"language,omitempty" desc:"the keyword surface: eng (default) or nob"`
	StoreID  string  `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// Surface is a language argument: eng or nob.
type Surface string

// JSONSchema states the surfaces.
func (Surface) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "enum": []string{"eng", "nob"}}
}

// Installs are what one submission installed.
type Installs struct {
	Classes     []string `json:"classes,omitempty" desc:"the classes (kinds) the module declares; absent for none"`
	Scripts     []string `json:"scripts,omitempty" desc:"the scripts it installed, each with its full call signature (module.name(param: type, …)); absent for none"`
	Rules       []string `json:"rules,omitempty" desc:"the standing rules it installed, as module.name; absent for none"`
	Constraints []string `json:"constraints,omitempty" desc:"the standing constraints it installed, as module.name; absent for none"`
	Computed    []string `json:"computed_fields,omitempty" desc:"the computed fields its classes declare, as Kind.attribute; absent for none"`
}

func (in Installs) empty() bool {
	return len(in.Classes)+len(in.Scripts)+len(in.Rules)+len(in.Constraints)+len(in.Computed) == 0
}

// CompileResult is compile's answer.
type CompileResult struct {
	Status   string `json:"status" desc:"success (a source that does not compile is refused with compile_error instead)"`
	Module   string `json:"module" desc:"the module's name, as given"`
	Version  string `json:"version,omitempty" desc:"the module's version label as now recorded; absent when it has none"`
	Language string `json:"language" desc:"the keyword surface the module was compiled in: eng or nob"`
	// Installed is absent on a reload and when the module declares nothing.
	Installed *Installs `json:"installed,omitempty" desc:"what this submission installed; absent on a reload by name and when the module declares nothing installable"`
	// Restored is what a reload brought back: the declarations forgotten
	// since the last compile (DL-0445); absent when there were none.
	Restored *Installs `json:"restored,omitempty" desc:"on a reload by name, the declarations forgotten since the last compile that it brought back; absent when there were none"`
	// Body is what the module body did; absent when it has no body.
	Body *Outcome `json:"body,omitempty" desc:"what the module body did when it ran, as run reports it; absent when the module has no body"`
	Text string   `json:"text" desc:"the human-readable answer: the acknowledgement, the installs, then the body's transcript"`

	bodyText string
}

// RunParams are run's arguments (contract §4.2).
type RunParams struct {
	Source   string  `json:"source" desc:"a program: statements that read, write and call compiled scripts"`
	Language Surface `json:"language,omitempty" desc:"the keyword surface: eng (default) or nob"`
	StoreID  string  `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// RunResult is run's answer: the machine-readable result and the
// transcript.
type RunResult struct {
	Outcome
	Text string `json:"text" desc:"the human-readable transcript, in the source's surface: the header with its verdict, then prints and store effects in execution order"`
}

// Outcome is a run's machine-readable result: its terminal status, the
// tallies, the print sequence and the entries in execution order.
type Outcome struct {
	Status  string   `json:"status" desc:"ok, or error when a statement failed (the writes before it persist)"`
	Reason  string   `json:"reason,omitempty" desc:"why the run failed; absent when status is ok"`
	Written int      `json:"claims_written" desc:"the claims the run added (a remember of a value already recorded adds none)"`
	Removed int      `json:"claims_removed" desc:"the claims the run's forgets removed"`
	Prints  []string `json:"prints" desc:"the lines the run printed, in order; [] for none"`
	Entries []Entry  `json:"entries" desc:"the transcript's body as data, in execution order: prints, store effects and bound values; [] for none"`
}

// Entry is one line of a transcript as data; only the fields of its type
// are present.
type Entry struct {
	Type     string        `json:"type" desc:"what the entry records: print, remember, update, forget or bind (a value script's result bound to a name)"`
	Language string        `json:"language" desc:"the keyword surface of the code that produced it (a called module's effects are in the module's): eng or nob"`
	Text     string        `json:"text,omitempty" desc:"print: the line printed; remember, update, bind: the value's literal; absent otherwise"`
	Cell     *claims.Cell  `json:"cell,omitempty" desc:"remember, update, forget: the cell written, Kind.subject.attribute; absent otherwise"`
	Value    *claims.Value `json:"value,omitempty" desc:"remember, update: the value written, as a typed value; absent otherwise"`
	Source   string        `json:"source,omitempty" desc:"remember, update: the source the claim is recorded from; absent otherwise"`
	Before   *int64        `json:"before,omitempty" desc:"a range forget: the logical instant before which older versions were removed; absent otherwise"`
	Count    int           `json:"count,omitempty" desc:"remember, update, forget: the claims the write added or removed; absent when none"`
	Name     string        `json:"name,omitempty" desc:"bind: the name the value is bound to; absent otherwise"`
	VType    string        `json:"value_type,omitempty" desc:"bind: the value's type (int, string, string_list, …); absent otherwise"`
}

// outcome converts eval's machine result, whose zero-valued fields the
// result schema could not describe.
func outcome(r *eval.Result) Outcome {
	m := r.Machine()
	o := Outcome{Status: string(m.Status), Reason: m.Reason, Written: m.Written, Removed: m.Removed, Prints: m.Prints, Entries: []Entry{}}
	for _, e := range m.Entries {
		x := Entry{Type: string(e.Type), Language: e.Lang.String(), Text: e.Text, Source: e.Source, Count: e.Count, Name: e.Name, VType: e.VType}
		if e.Cell != (claims.Cell{}) {
			c := e.Cell
			x.Cell = &c
		}
		if e.Value.Tag != "" {
			v := e.Value
			x.Value = &v
		}
		if e.HasBefore {
			b := e.Before
			x.Before = &b
		}
		o.Entries = append(o.Entries, x)
	}
	return o
}

// language parses a language argument.
func language(tag Surface) (keywords.Lang, error) {
	l, err := keywords.ParseLang(string(tag))
	if err != nil {
		return 0, fault.Errorf(fault.Invalid, fault.CodeBadParams, "language %q: the surfaces are eng and nob", tag)
	}
	return l, nil
}

// compileError is the refusal of a source that does not check: the
// diagnostics travel as error data, which _meta carries (§4.1, §6.1).
func compileError(errs diag.List) error {
	status := diag.TypeError
	for _, d := range errs {
		if d.Class == diag.ParseError {
			status = diag.ParseError
		}
	}
	ds := make([]diag.Diagnostic, len(errs))
	copy(ds, errs)
	var lines []string
	for _, d := range errs {
		lines = append(lines, fmt.Sprintf("line %d, col %d: %s", d.Line, d.Col, d.Message))
	}
	return fault.Errorf(fault.Refused, CodeCompileError, "the source does not compile (%s); nothing was stored:\n%s", status, strings.Join(lines, "\n")).
		With("compile_status", string(status)).With("diagnostics", ds)
}

// Compile checks and stores a module, then runs its body.
func (s *Service) Compile(ctx context.Context, p *CompileParams) (CompileResult, error) {
	id, err := storeID(p.StoreID)
	if err != nil {
		return CompileResult{}, err
	}
	if err := authorize(ctx, "compile", id); err != nil {
		return CompileResult{}, err
	}
	if err := syntax.CheckModuleName(p.Name); err != nil {
		return CompileResult{}, fault.Errorf(fault.Invalid, CodeBadName, "%v", err)
	}
	lang, err := language(p.Language)
	if err != nil {
		return CompileResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, _, err := s.read(id)
	if err != nil {
		return CompileResult{}, err
	}
	ms, err := s.modules(id, sn)
	if err != nil {
		return CompileResult{}, err
	}
	if p.Source == nil {
		return s.reload(ctx, id, p.Name, ms)
	}
	f, info, errs := check.Source(p.Name, *p.Source, lang, check.Options{Module: p.Name, Mode: check.Compile, Env: ms.env})
	if len(errs) > 0 {
		return CompileResult{}, compileError(errs)
	}
	modsAt := s.store(id).head
	rec := s.newRecord(p, lang, info, ms)
	ms = ms.clone()
	if err := ms.put(rec); err != nil {
		return CompileResult{}, err
	}
	res := CompileResult{Status: "success", Module: p.Name, Version: rec.Version, Language: lang.String()}
	if in := installs(p.Name, info, lang); !in.empty() {
		res.Installed = &in
	}
	// The module and its body's writes are one commit; a body that fails
	// keeps the module and the writes made before the failure.
	var set claims.ChangeSet
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	res.Body, res.bodyText, set, err = s.runBody(ctx, "compile", id, p.Name, f, ms)
	if err != nil {
		return CompileResult{}, err
	}
	put := func(b *lorestore.Batch) error { return b.PutModule(id, p.Name, jsonOf(rec)) }
	if _, err := s.commitRun(id, set, put, dkeMessage("dke compile "+p.Name, "compile", id), ms, modsAt); err != nil {
		return CompileResult{}, err
	}
	res.Text = compileText(res, lang, false)
	return res, nil
}

// newRecord is the record a compile stores: version by equality and kept
// when omitted, created kept, updated moved only by a content change.
func (s *Service) newRecord(p *CompileParams, lang keywords.Lang, info *check.ModuleInfo, ms *modset) *record {
	now := s.now().Format(time.RFC3339)
	rec := &record{Name: p.Name, Source: *p.Source, Language: lang.String(), Created: now, Updated: now,
		Authority: s.cfg.Authority, Manifest: Manifest, Installs: info, Imports: []pin{}}
	for _, imp := range info.Imports {
		if r, ok := ms.recs[imp]; ok && imp != p.Name {
			rec.Imports = append(rec.Imports, pin{Name: imp, Source: r.Source, Language: r.Language, Forgotten: r.Forgotten})
		}
	}
	old, ok := ms.recs[p.Name]
	if ok {
		rec.Created = old.Created
		rec.Version = old.Version
		if old.Source == rec.Source && old.Language == rec.Language && slices.Equal(importNames(old), importNames(rec)) && len(old.Forgotten) == 0 {
			rec.Updated = old.Updated
		}
	}
	if p.Version != nil {
		if ok && old.Version != *p.Version {
			rec.Updated = now
		}
		rec.Version = *p.Version
	}
	return rec
}

func importNames(r *record) []string {
	var out []string
	for _, p := range r.Imports {
		out = append(out, p.Name+"\x00"+p.Source)
	}
	return out
}

// reload compiles a stored module's source again: it installs nothing
// new, brings back what forget, forget_rule and forget_constraint removed
// since the last compile (DKE §9.3: re-compiling brings them back; the
// answer's restored lists them), and runs the body again. The module's
// imports stay pinned as they were; only a compile with source re-pins
// them (§9.4).
func (s *Service) reload(ctx context.Context, id, name string, ms *modset) (CompileResult, error) {
	rec, ok := ms.recs[name]
	if !ok {
		return CompileResult{}, fault.Errorf(fault.NotFound, CodeNotFound, "no module %s in store %s to reload; give source to compile it", name, id)
	}
	var put func(*lorestore.Batch) error
	var restored *Installs
	modsAt, next := lorestore.ZeroHash, (*modset)(nil)
	if len(rec.Forgotten) > 0 {
		back := *rec
		back.Forgotten, back.Updated = nil, s.now().Format(time.RFC3339)
		modsAt, next = s.store(id).head, ms.clone()
		if err := next.put(&back); err != nil {
			return CompileResult{}, err
		}
		restored = forgottenInstalls(name, rec, &back)
		put = func(b *lorestore.Batch) error { return b.PutModule(id, name, jsonOf(&back)) }
		ms = next
	}
	f := ms.files[name]
	res := CompileResult{Status: "success", Module: name, Version: rec.Version, Language: f.Lang.String(), Restored: restored}
	var set claims.ChangeSet
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	var err error
	res.Body, res.bodyText, set, err = s.runBody(ctx, "compile", id, name, f, ms)
	if err != nil {
		return CompileResult{}, err
	}
	if res.Body != nil || put != nil {
		var written, removed int
		if res.Body != nil {
			written, removed = res.Body.Written, res.Body.Removed
		}
		msg := runMessage("compile", name, id, written, removed)
		if restored != nil {
			n := len(restored.Scripts) + len(restored.Rules) + len(restored.Constraints)
			msg.Summary = strings.Replace(msg.Summary, ": ", fmt.Sprintf(": %s restored, ", plural(n, "declaration", "declarations")), 1)
		}
		if _, err := s.commitRun(id, set, put, msg, next, modsAt); err != nil {
			return CompileResult{}, err
		}
	}
	res.Text = compileText(res, f.Lang, true)
	return res, nil
}

// forgottenInstalls lists what back (the record with nothing forgotten)
// declares that rec, with its forgotten declarations, does not.
func forgottenInstalls(name string, rec, back *record) *Installs {
	l, _ := keywords.ParseLang(rec.Language)
	was, now := installs(name, rec.info(), l), installs(name, back.info(), l)
	only := func(all, had []string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(x string) bool { return slices.Contains(had, x) })
	}
	in := Installs{Scripts: only(now.Scripts, was.Scripts), Rules: only(now.Rules, was.Rules), Constraints: only(now.Constraints, was.Constraints)}
	if in.empty() {
		return nil
	}
	return &in
}

// hasBody reports whether a module has statements besides declarations.
func hasBody(f *syntax.File) bool {
	for _, st := range f.Stmts {
		switch st.(type) {
		case *syntax.DefStmt, *syntax.ClassStmt, *syntax.ImportStmt:
		default:
			return true
		}
	}
	return false
}

// runBody runs a module's body once over an overlay and returns what it
// did and its net change set, for the caller to commit; nil when the
// module has no body. A body its budget stopped is refused.
func (s *Service) runBody(ctx context.Context, tool, id, name string, f *syntax.File, ms *modset) (*Outcome, string, claims.ChangeSet, error) {
	if !hasBody(f) {
		return nil, "", claims.ChangeSet{}, nil
	}
	r, set := s.exec(ctx, id, name, f, ms, false)
	if be, ok := eval.IsBudget(r.Err); ok {
		return nil, "", claims.ChangeSet{}, s.budgetError(tool, be)
	}
	o := outcome(r)
	return &o, r.Transcript(), set, nil
}

// exec runs f over an overlay of store id and returns the result and
// the run's net change set, its Base the commit it read; nothing is
// committed here. With carry, the run starts from the store's cached rule
// model at that commit, when there is one.
func (s *Service) exec(ctx context.Context, id, module string, f *syntax.File, ms *modset, carry bool) (*eval.Result, claims.ChangeSet) {
	snap, err := s.store(id).Snapshot()
	if err != nil {
		// eval reports the store's failure as the run's.
		return eval.Run(f, eval.Options{Store: failStore{err}, Modules: ms, Module: module}), claims.ChangeSet{}
	}
	opts := eval.Options{Store: newRunStore(snap), Modules: ms, Module: module, Memory: s.cfg.Budget.Memory}
	if carry {
		opts.Rules = s.rules.get(id, lorestore.NewHash(snap.Version()))
	}
	r := eval.RunContext(ctx, f, opts)
	set := opts.Store.(*runStore).changes()
	set.Base = snap.Version()
	return r, set
}

// installs lists what a module summary declares.
func installs(module string, info *check.ModuleInfo, l keywords.Lang) Installs {
	var in Installs
	for _, k := range info.Kinds {
		in.Classes = append(in.Classes, k.Name)
		for _, a := range k.Attrs {
			if a.Computed {
				in.Computed = append(in.Computed, k.Name+"."+a.Name)
			}
		}
	}
	for i := range info.Scripts {
		in.Scripts = append(in.Scripts, signature(module, &info.Scripts[i], l))
	}
	for _, r := range info.Rules {
		in.Rules = append(in.Rules, r.Name)
	}
	for _, c := range info.Constraints {
		if !strings.Contains(c, ".") {
			c = module + "." + c
		}
		in.Constraints = append(in.Constraints, c)
	}
	return in
}

// Run executes a program once (contract §4.2).
func (s *Service) Run(ctx context.Context, p *RunParams) (RunResult, error) {
	id, err := storeID(p.StoreID)
	if err != nil {
		return RunResult{}, err
	}
	if err := authorize(ctx, "run", id); err != nil {
		return RunResult{}, err
	}
	lang, err := language(p.Language)
	if err != nil {
		return RunResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, _, err := s.read(id)
	if err != nil {
		return RunResult{}, err
	}
	ms, err := s.modules(id, sn)
	if err != nil {
		return RunResult{}, err
	}
	f, _, errs := check.Source("", p.Source, lang, check.Options{Mode: check.Run, Env: ms.env})
	if len(errs) > 0 {
		return RunResult{}, compileError(errs)
	}
	if len(f.Stmts) == 0 {
		return RunResult{}, fault.Errorf(fault.Refused, CodeRefused, "the source has no statements: there is nothing to run")
	}
	// One commit for the whole run, a failed one too: its writes before
	// the failure stand (contract §4.2); a run its budget stopped is
	// refused, and writes nothing (DL-0425).
	ctx, cancel := s.budgeted(ctx)
	defer cancel()
	// A refused run leaves the cached rule model as it was; one that
	// committed leaves its own, when it committed just what it wrote.
	r, set := s.exec(ctx, id, "", f, ms, true)
	if be, ok := eval.IsBudget(r.Err); ok {
		return RunResult{}, s.budgetError("run", be)
	}
	o := outcome(r)
	at, err := s.commitRun(id, set, nil, runMessage("run", "", id, o.Written, o.Removed), nil, lorestore.ZeroHash)
	if err != nil {
		return RunResult{}, err
	}
	if at.exact {
		s.rules.put(id, at.head, r.Rules())
	} else {
		s.rules.drop(id)
	}
	return RunResult{Outcome: o, Text: r.Transcript()}, nil
}

// signature renders a script's call signature with the type names of
// surface l (ScriptInfo.Signature writes English ones).
func signature(module string, sc *check.ScriptInfo, l keywords.Lang) string {
	var b strings.Builder
	b.WriteString(module + "." + sc.Name + "(")
	for i, p := range sc.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name + ": " + p.Type.Text(l))
	}
	b.WriteString(")")
	if sc.Result.Tag != check.TNone {
		b.WriteString(" -> " + sc.Result.Text(l))
	}
	return b.String()
}
