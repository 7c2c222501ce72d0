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
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/worker"
)

// CompileParams are compile's arguments (contract §4.1).
type CompileParams struct {
	Name     string  `json:"name"`
	Source   *string `json:"source,omitempty"`
	Version  *string `json:"version,omitempty"`
	Language string  `json:"language,omitempty"`
	StoreID  string  `json:"store_id,omitempty"`
}

// Installs are what one submission installed.
type Installs struct {
	Classes     []string `json:"classes,omitempty"`
	Scripts     []string `json:"scripts,omitempty"`
	Rules       []string `json:"rules,omitempty"`
	Constraints []string `json:"constraints,omitempty"`
	Computed    []string `json:"computed_fields,omitempty"`
}

func (in Installs) empty() bool {
	return len(in.Classes)+len(in.Scripts)+len(in.Rules)+len(in.Constraints)+len(in.Computed) == 0
}

// CompileResult is compile's answer.
type CompileResult struct {
	Status   string `json:"status"`
	Module   string `json:"module"`
	Language string `json:"language"`
	// Installed is absent on a reload and when the module declares nothing.
	Installed *Installs `json:"installed,omitempty"`
	// Body is what the module body did; absent when it has no body.
	Body *Outcome `json:"body,omitempty"`
	Text string   `json:"text"`

	bodyText string
}

// RunParams are run's arguments (contract §4.2).
type RunParams struct {
	Source   string `json:"source"`
	Language string `json:"language,omitempty"`
	StoreID  string `json:"store_id,omitempty"`
}

// RunResult is run's answer: the machine-readable result and the
// transcript.
type RunResult struct {
	Outcome
	Text string `json:"text"`
}

// Outcome is a run's machine-readable result: its terminal status, the
// tallies, the print sequence and the entries in execution order.
type Outcome struct {
	Status  string   `json:"status"`
	Reason  string   `json:"reason,omitempty"`
	Written int      `json:"claims_written"`
	Removed int      `json:"claims_removed"`
	Prints  []string `json:"prints"`
	Entries []Entry  `json:"entries"`
}

// Entry is one line of a transcript as data; only the fields of its type
// are present.
type Entry struct {
	Type     string        `json:"type"`
	Language string        `json:"language"`
	Text     string        `json:"text,omitempty"`
	Cell     *claims.Cell  `json:"cell,omitempty"`
	Value    *claims.Value `json:"value,omitempty"`
	Source   string        `json:"source,omitempty"`
	Before   *int64        `json:"before,omitempty"`
	Count    int           `json:"count,omitempty"`
	Name     string        `json:"name,omitempty"`
	VType    string        `json:"value_type,omitempty"`
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
func language(tag string) (keywords.Lang, error) {
	l, err := keywords.ParseLang(tag)
	if err != nil {
		return 0, worker.Errorf(worker.ClassSchema, worker.CodeBadParams, "language %q: the surfaces are eng and nob", tag)
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
	return worker.Errorf(worker.ClassRefused, CodeCompileError, "the source does not compile (%s); nothing was stored:\n%s", status, strings.Join(lines, "\n")).
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
		return CompileResult{}, worker.Errorf(worker.ClassSchema, CodeBadName, "%v", err)
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
	ms, err := loadModules(sn, id)
	if err != nil {
		return CompileResult{}, err
	}
	if p.Source == nil {
		return s.reload(id, p.Name, ms)
	}
	f, info, errs := check.Source(p.Name, *p.Source, lang, check.Options{Module: p.Name, Mode: check.Compile, Env: ms.env})
	if len(errs) > 0 {
		return CompileResult{}, compileError(errs)
	}
	rec := s.newRecord(p, lang, info, ms)
	ms.recs[p.Name] = rec
	if err := ms.index(); err != nil {
		return CompileResult{}, err
	}
	put := func(b *lorestore.Batch) error { return b.PutModule(id, p.Name, jsonOf(rec)) }
	if err := s.write(id, claims.ChangeSet{}, put, dkeMessage("dke compile "+p.Name, "compile", id)); err != nil {
		return CompileResult{}, err
	}
	res := CompileResult{Status: "success", Module: p.Name, Language: lang.String()}
	if in := installs(p.Name, info, lang); !in.empty() {
		res.Installed = &in
	}
	res.Body, res.bodyText = s.runBody(id, p.Name, f, ms)
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

// reload runs a stored module's body again; it installs nothing.
func (s *Service) reload(id, name string, ms *modset) (CompileResult, error) {
	f, ok := ms.files[name]
	if !ok {
		return CompileResult{}, worker.Errorf(worker.ClassNotFound, CodeNotFound, "no module %s in store %s to reload; give source to compile it", name, id)
	}
	res := CompileResult{Status: "success", Module: name, Language: f.Lang.String()}
	res.Body, res.bodyText = s.runBody(id, name, f, ms)
	res.Text = compileText(res, f.Lang, true)
	return res, nil
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

// runBody runs a module's body once, its writes committed as "dke
// compile <name>" commits; nil when the module has no body.
func (s *Service) runBody(id, name string, f *syntax.File, ms *modset) (*Outcome, string) {
	if !hasBody(f) {
		return nil, ""
	}
	r := s.exec(id, "compile", name, f, ms)
	o := outcome(r)
	return &o, r.Transcript()
}

// exec runs f over store id with its commits labelled.
func (s *Service) exec(id, op, subject string, f *syntax.File, ms *modset) *eval.Result {
	cs := s.store(id)
	cs.op, cs.subject = op, subject
	defer func() { cs.op, cs.subject = "", "" }()
	return eval.Run(f, eval.Options{Store: cs, Modules: ms, Module: subject})
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
	ms, err := loadModules(sn, id)
	if err != nil {
		return RunResult{}, err
	}
	f, _, errs := check.Source("", p.Source, lang, check.Options{Mode: check.Run, Env: ms.env})
	if len(errs) > 0 {
		return RunResult{}, compileError(errs)
	}
	if len(f.Stmts) == 0 {
		return RunResult{}, worker.Errorf(worker.ClassRefused, CodeRefused, "the source has no statements: there is nothing to run")
	}
	r := s.exec(id, "run", "", f, ms)
	return RunResult{Outcome: outcome(r), Text: r.Transcript()}, nil
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
