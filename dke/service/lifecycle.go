// The tools that read or remove what compile stored: spec, list, info,
// forget, forget_rule, forget_constraint, list_modules, info_module,
// forget_module and stores.

package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deloreis/deloreis/dke/check"
	"github.com/deloreis/deloreis/dke/claims"
	"github.com/deloreis/deloreis/dke/eval"
	"github.com/deloreis/deloreis/dke/reference"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
)

// StoreParams name a store and nothing else.
type StoreParams struct {
	StoreID string `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// NameParams name a module, script, rule or constraint in a store.
type NameParams struct {
	Name    string `json:"name" desc:"module.name for a script, rule or constraint; the bare name for a module"`
	StoreID string `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// SpecParams are spec's arguments.
type SpecParams struct {
	Edition Surface `json:"edition,omitempty" desc:"the keyword surface to render in: eng (default) or nob"`
	Topic   Topic   `json:"topic,omitempty" desc:"one slice of the reference; omit for the whole"`
}

// Topic is a slice of the language reference.
type Topic string

// JSONSchema states the topics.
func (Topic) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "enum": reference.Topics()}
}

// Target is what list lists.
type Target string

// JSONSchema states the targets.
func (Target) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "enum": []string{"scripts", "rules", "kinds"}}
}

// ListParams are list's arguments.
type ListParams struct {
	Target  Target `json:"target,omitempty" desc:"scripts (default, with full signatures), rules or kinds"`
	StoreID string `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// ForgetModuleParams are forget_module's arguments.
type ForgetModuleParams struct {
	Name    string `json:"name" desc:"the bare module name"`
	Confirm bool   `json:"confirm,omitempty" desc:"must be true: the module's scripts, kinds and their data go with it, irreversibly"`
	StoreID string `json:"store_id,omitempty" desc:"the store (default \"default\")"`
}

// TextResult is an answer that is text, with its status.
type TextResult struct {
	Status string `json:"status" desc:"success"`
	Text   string `json:"text" desc:"the answer, as text"`
}

// ListResult is list's answer: the lines, in a stable order.
type ListResult struct {
	Status string   `json:"status" desc:"success"`
	Target string   `json:"target" desc:"what is listed: scripts, rules or kinds"`
	Items  []string `json:"items" desc:"one line an item, in a stable order: a script's full signature, a rule's module.name, or a kind's name"`
	Text   string   `json:"text" desc:"the items, one a line"`
}

// ForgetResult says what a forget removed.
type ForgetResult struct {
	Status  string `json:"status" desc:"success, also when there was nothing to forget (forget, forget_rule and forget_constraint are idempotent)"`
	Name    string `json:"name" desc:"the name forgotten, as given"`
	Removed bool   `json:"removed" desc:"true when something was removed; false when it was gone already"`
	// Claims counts the claims a forget_module removed with the module.
	Claims int `json:"claims_removed" desc:"forget_module: the claims removed with the module's kinds; 0 for the other forgets"`
	// Withdrawn are the cells whose derived value forget_rule withdrew
	// (a conclusion another rule still supports is not among them).
	Withdrawn []string `json:"withdrawn,omitempty" desc:"forget_rule: the cells (Kind.subject.attribute) whose derived value the rule's removal withdrew (a conclusion another rule supports stays); absent otherwise"`
	Text      string   `json:"text" desc:"what was done, as text"`
}

// ModuleHandle is one line of list_modules.
type ModuleHandle struct {
	Name    string `json:"name" desc:"the module's bare name"`
	Scripts int    `json:"scripts" desc:"how many scripts it defines"`
	Created string `json:"created" desc:"when it was first stored, RFC 3339"`
}

// ModulesResult is list_modules' answer.
type ModulesResult struct {
	Status  string         `json:"status" desc:"success"`
	Modules []ModuleHandle `json:"modules" desc:"every module, in a stable order; [] for none"`
	Text    string         `json:"text" desc:"one line a module: name, script count, created"`
}

// ModuleInfoResult is info_module's answer.
type ModuleInfoResult struct {
	Status   string   `json:"status" desc:"success"`
	Name     string   `json:"name" desc:"the module's bare name"`
	Language string   `json:"language" desc:"its init language, the surface its body was compiled in: eng or nob"`
	Scripts  []string `json:"scripts" desc:"the scripts it defines, as module.script"`
	Classes  []string `json:"classes,omitempty" desc:"the classes it declares; absent for none"`
	Version  string   `json:"version,omitempty" desc:"its version label; absent when it has none"`
	Created  string   `json:"created" desc:"when it was first stored, RFC 3339"`
	Updated  string   `json:"updated" desc:"when its content last changed, RFC 3339 (a compile of identical content leaves it)"`
	Text     string   `json:"text" desc:"the record, as text"`
}

// StoreInfo is one store of stores().
type StoreInfo struct {
	ID      string `json:"id" desc:"the store's id"`
	Claims  int    `json:"claims" desc:"how many claims it holds"`
	Modules int    `json:"modules" desc:"how many modules it holds"`
	// Created is absent for a store nothing has written (DL-0444).
	Created string `json:"created,omitempty" desc:"when the store was first written, RFC 3339; absent for a store nothing has written yet"`
}

// StoresResult is stores' answer.
type StoresResult struct {
	Status string      `json:"status" desc:"success"`
	Stores []StoreInfo `json:"stores" desc:"the store your key addresses (one)"`
	Text   string      `json:"text" desc:"the store's line: id, claims, modules, created"`
}

// Spec serves the language reference, whole or one topic.
func (s *Service) Spec(ctx context.Context, p *SpecParams) (TextResult, error) {
	lang, err := language(p.Edition)
	if err != nil {
		return TextResult{}, err
	}
	if p.Topic == "" {
		return TextResult{Status: "success", Text: reference.Full(lang)}, nil
	}
	t, err := reference.Topic(lang, string(p.Topic))
	if err != nil {
		return TextResult{}, fault.Errorf(fault.NotFound, CodeNotFound, "%v", err)
	}
	return TextResult{Status: "success", Text: t}, nil
}

// begin validates the store and the grant, locks the service and loads
// the store's modules. The caller unlocks s.mu.
func (s *Service) begin(ctx context.Context, tool, storeArg string) (string, *lorestore.Snapshot, claims.Snapshot, *modset, error) {
	id, err := storeID(storeArg)
	if err != nil {
		return "", nil, nil, nil, err
	}
	if err := authorize(ctx, tool, id); err != nil {
		return "", nil, nil, nil, err
	}
	s.mu.Lock()
	sn, csnap, err := s.read(id)
	if err != nil {
		s.mu.Unlock()
		return "", nil, nil, nil, err
	}
	ms, err := s.modules(id, sn)
	if err != nil {
		s.mu.Unlock()
		return "", nil, nil, nil, err
	}
	return id, sn, csnap, ms, nil
}

// List lists scripts with their signatures, rule names, or kinds.
func (s *Service) List(ctx context.Context, p *ListParams) (ListResult, error) {
	target := string(p.Target)
	if target == "" {
		target = "scripts"
	}
	if target != "scripts" && target != "rules" && target != "kinds" {
		return ListResult{}, fault.Errorf(fault.Invalid, fault.CodeBadParams, "target %q: list scripts, rules or kinds", target)
	}
	_, _, csnap, ms, err := s.begin(ctx, "list", p.StoreID)
	if err != nil {
		return ListResult{}, err
	}
	defer s.mu.Unlock()
	items := []string{}
	for _, n := range ms.names() {
		info := ms.recs[n].info()
		switch target {
		case "scripts":
			for i := range info.Scripts {
				items = append(items, info.Scripts[i].Signature(n))
			}
		case "rules":
			for _, r := range info.Rules {
				items = append(items, r.Name)
			}
		}
	}
	if target == "kinds" {
		items = append(items, csnap.Kinds()...)
	}
	return ListResult{Status: "success", Target: target, Items: items, Text: lines(items)}, nil
}

func lines(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return strings.Join(xs, "\n") + "\n"
}

// splitAddr splits module.name.
func splitAddr(addr string) (string, string, error) {
	mod, name, ok := strings.Cut(addr, ".")
	if !ok || mod == "" || name == "" || strings.Contains(name, ".") {
		return "", "", fault.Errorf(fault.Invalid, CodeBadName, "%q is not a module.name address", addr)
	}
	return mod, name, nil
}

// Info reports a script's compile provenance.
func (s *Service) Info(ctx context.Context, p *NameParams) (TextResult, error) {
	mod, name, err := splitAddr(p.Name)
	if err != nil {
		return TextResult{}, err
	}
	_, _, _, ms, err := s.begin(ctx, "info", p.StoreID)
	if err != nil {
		return TextResult{}, err
	}
	defer s.mu.Unlock()
	rec, ok := ms.recs[mod]
	var sc *check.ScriptInfo
	if ok {
		sc, ok = rec.info().Script(name)
	}
	if !ok {
		return TextResult{}, fault.Errorf(fault.NotFound, CodeNotFound, "no script %s", p.Name)
	}
	text := fmt.Sprintf("script %s\nsignature: %s\nauthority: %s\nlanguage: %s\nmanifest version: %s\ncompiled: %s\n",
		p.Name, sc.Signature(mod), rec.Authority, rec.Language, rec.Manifest, rec.Updated)
	return TextResult{Status: "success", Text: text}, nil
}

// forgetDecl removes one declaration of a module (a script, a rule or a
// constraint) until the module is compiled again. Idempotent.
func (s *Service) forgetDecl(ctx context.Context, tool, what string, p *NameParams, has func(*check.ModuleInfo, string) bool) (ForgetResult, error) {
	mod, name, err := splitAddr(p.Name)
	if err != nil {
		return ForgetResult{}, err
	}
	id, _, csnap, ms, err := s.begin(ctx, tool, p.StoreID)
	if err != nil {
		return ForgetResult{}, err
	}
	defer s.mu.Unlock()
	res := ForgetResult{Status: "success", Name: p.Name}
	rec, ok := ms.recs[mod]
	if !ok || !has(rec.info(), name) {
		res.Text = fmt.Sprintf("no %s %s: nothing to forget\n", what, p.Name)
		return res, nil
	}
	next := *rec
	next.Forgotten = append(slices.Clone(rec.Forgotten), name)
	slices.Sort(next.Forgotten)
	next.Updated = s.now().Format(time.RFC3339)
	put := func(b *lorestore.Batch) error { return b.PutModule(id, mod, jsonOf(&next)) }
	after := ms.clone()
	if err := after.put(&next); err != nil {
		return ForgetResult{}, err
	}
	// What the rule's absence withdraws is reasoned before the write,
	// under the call's budget, so that a stopped reasoning writes nothing.
	if tool == "forget_rule" {
		ctx, cancel := s.budgeted(ctx)
		defer cancel()
		res.Withdrawn, err = withdrawn(ctx, csnap, ms, after, s.cfg.Budget.Memory)
		if be, ok := eval.IsBudget(err); ok {
			return ForgetResult{}, s.budgetError(tool, be)
		}
		if err != nil {
			return ForgetResult{}, err
		}
	}
	if err := s.write(id, claims.ChangeSet{}, put, dkeMessage("dke "+tool+" "+p.Name, strings.ReplaceAll(tool, "_", "-"), id), after); err != nil {
		return ForgetResult{}, err
	}
	res.Removed = true
	res.Text = fmt.Sprintf("forgot %s %s\n", what, p.Name)
	for _, c := range res.Withdrawn {
		res.Text += "withdrawn " + c + "\n"
	}
	return res, nil
}

// Forget removes one script.
func (s *Service) Forget(ctx context.Context, p *NameParams) (ForgetResult, error) {
	return s.forgetDecl(ctx, "forget", "script", p, func(in *check.ModuleInfo, n string) bool {
		_, ok := in.Script(n)
		return ok
	})
}

// ForgetRule removes one standing rule; its conclusions go with it, as
// rules derive at read time, unless another rule still supports them.
func (s *Service) ForgetRule(ctx context.Context, p *NameParams) (ForgetResult, error) {
	return s.forgetDecl(ctx, "forget_rule", "rule", p, func(in *check.ModuleInfo, n string) bool {
		return slices.ContainsFunc(in.Rules, func(r check.RuleInfo) bool { return ruleLocal(r.Name) == n })
	})
}

// ForgetConstraint removes one standing constraint; it withdraws nothing.
func (s *Service) ForgetConstraint(ctx context.Context, p *NameParams) (ForgetResult, error) {
	return s.forgetDecl(ctx, "forget_constraint", "constraint", p, func(in *check.ModuleInfo, n string) bool {
		return slices.ContainsFunc(in.Constraints, func(c string) bool { return ruleLocal(c) == n })
	})
}

// ListModules lists module handles by name.
func (s *Service) ListModules(ctx context.Context, p *StoreParams) (ModulesResult, error) {
	_, _, _, ms, err := s.begin(ctx, "list_modules", p.StoreID)
	if err != nil {
		return ModulesResult{}, err
	}
	defer s.mu.Unlock()
	res := ModulesResult{Status: "success", Modules: []ModuleHandle{}}
	var b strings.Builder
	for _, n := range ms.names() {
		h := ModuleHandle{Name: n, Scripts: len(ms.recs[n].info().Scripts), Created: ms.recs[n].Created}
		res.Modules = append(res.Modules, h)
		fmt.Fprintf(&b, "%s  %s  created %s\n", n, plural(h.Scripts, "script", "scripts"), h.Created)
	}
	res.Text = b.String()
	return res, nil
}

// InfoModule reports a module's record.
func (s *Service) InfoModule(ctx context.Context, p *NameParams) (ModuleInfoResult, error) {
	_, _, _, ms, err := s.begin(ctx, "info_module", p.StoreID)
	if err != nil {
		return ModuleInfoResult{}, err
	}
	defer s.mu.Unlock()
	rec, ok := ms.recs[p.Name]
	if !ok {
		return ModuleInfoResult{}, fault.Errorf(fault.NotFound, CodeNotFound, "no module %s", p.Name)
	}
	info := rec.info()
	res := ModuleInfoResult{Status: "success", Name: p.Name, Language: rec.Language, Scripts: []string{},
		Version: rec.Version, Created: rec.Created, Updated: rec.Updated}
	for _, sc := range info.Scripts {
		res.Scripts = append(res.Scripts, p.Name+"."+sc.Name)
	}
	for _, k := range info.Kinds {
		res.Classes = append(res.Classes, k.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\nlanguage: %s\n", p.Name, rec.Language)
	fmt.Fprintf(&b, "scripts: %s\n", strings.Join(res.Scripts, ", "))
	if len(res.Classes) > 0 {
		fmt.Fprintf(&b, "classes: %s\n", strings.Join(res.Classes, ", "))
	}
	if rec.Version != "" {
		fmt.Fprintf(&b, "version: %s\n", rec.Version)
	}
	fmt.Fprintf(&b, "created: %s\nupdated: %s\n", rec.Created, rec.Updated)
	res.Text = b.String()
	return res, nil
}

// ForgetModule removes a module with its scripts, kinds and their data.
func (s *Service) ForgetModule(ctx context.Context, p *ForgetModuleParams) (ForgetResult, error) {
	if !p.Confirm {
		return ForgetResult{}, fault.Errorf(fault.Refused, CodeConfirm, "forget_module removes module %s with its scripts, kinds and their data, irreversibly: call it with confirm=true", p.Name)
	}
	id, _, csnap, ms, err := s.begin(ctx, "forget_module", p.StoreID)
	if err != nil {
		return ForgetResult{}, err
	}
	defer s.mu.Unlock()
	rec, ok := ms.recs[p.Name]
	if !ok {
		return ForgetResult{}, fault.Errorf(fault.NotFound, CodeNotFound, "no module %s in store %s", p.Name, id)
	}
	if refs := ms.referrers(p.Name); len(refs) > 0 {
		return ForgetResult{}, fault.Errorf(fault.Refused, CodeReferenced, "module %s is imported by %s; forget or recompile %s first", p.Name, strings.Join(refs, ", "), refs[0]).With("referrers", refs)
	}
	var set claims.ChangeSet
	for _, k := range rec.Installs.Kinds {
		for _, c := range csnap.Cells(k.Name) {
			set.Removes = append(set.Removes, csnap.Claims(c)...)
		}
	}
	rm := func(b *lorestore.Batch) error { return b.RemoveModule(id, p.Name) }
	msg := dkeMessage(fmt.Sprintf("dke forget_module %s: %s removed", p.Name, plural(len(set.Removes), "claim", "claims")), "forget-module", id)
	after := ms.clone()
	delete(after.recs, p.Name)
	delete(after.files, p.Name)
	delete(after.pins, p.Name)
	after.reindex()
	if err := s.write(id, set, rm, msg, after); err != nil {
		return ForgetResult{}, err
	}
	return ForgetResult{Status: "success", Name: p.Name, Removed: true, Claims: len(set.Removes),
		Text: fmt.Sprintf("forgot module %s: %s removed\n", p.Name, plural(len(set.Removes), "claim", "claims"))}, nil
}

// Stores reports the store's id, size and creation; without a grant, every
// store of the lorestore.
func (s *Service) Stores(ctx context.Context, p *StoreParams) (StoresResult, error) {
	id, sn, csnap, ms, err := s.begin(ctx, "stores", p.StoreID)
	if err != nil {
		return StoresResult{}, err
	}
	defer s.mu.Unlock()
	n := 0
	for _, k := range csnap.Kinds() {
		for _, c := range csnap.Cells(k) {
			n += len(csnap.Claims(c))
		}
	}
	h, err := readHeader(sn, id)
	if err != nil {
		return StoresResult{}, err
	}
	si := StoreInfo{ID: id, Claims: n, Modules: len(ms.recs), Created: h.Created}
	created := "created " + si.Created
	if si.Created == "" {
		created = "not yet written" // no write has made it: it has no created-at
	}
	text := fmt.Sprintf("%s  %s, %s  %s\n", id, plural(n, "claim", "claims"), plural(si.Modules, "module", "modules"), created)
	return StoresResult{Status: "success", Stores: []StoreInfo{si}, Text: text}, nil
}

// withdrawn lists the cells the rules of before conclude and those of
// after no longer do, over one snapshot.
func withdrawn(ctx context.Context, snap claims.Snapshot, before, after *modset, memory int64) ([]string, error) {
	rb, err := eval.ReasonContext(ctx, snap, before, memory)
	if err != nil {
		return nil, err
	}
	ra, err := eval.ReasonContext(ctx, snap, after, memory)
	if err != nil {
		return nil, err
	}
	still := map[claims.Cell]bool{}
	for _, c := range ra.Conclusions() {
		still[c] = true
	}
	var out []string
	for _, c := range rb.Conclusions() {
		if !still[c] {
			out = append(out, c.String())
		}
	}
	return out, nil
}
