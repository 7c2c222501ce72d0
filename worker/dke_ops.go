// The DKE binding: the thirteen tools of dke-mcp-contract.txt, typed Go
// methods of the DKE runtime (package dke/service), registered as ops
// named as the contract names them. The service knows no transport; this
// file is where its methods become ops, with their summaries, the codes
// each answers with and their Writes and Destructive flags.

package worker

import (
	"context"
	"strings"

	"github.com/deloreis/deloreis/dke/service"
)

// RegisterDKE adds the contract's tools, served by s, to reg.
func RegisterDKE(reg *Registry, s *service.Service) {
	// Every tool but spec names a store, under a grant when one is given.
	store := []string{service.CodeBadStore, service.CodeWrongStore, service.CodeReadOnly}
	codes := map[string][]string{
		"compile":           {service.CodeBadName, service.CodeCompileError, service.CodeNotFound, service.CodeConflict, service.CodeBudget},
		"run":               {service.CodeCompileError, service.CodeRefused, service.CodeConflict, service.CodeBudget},
		"spec":              {service.CodeNotFound},
		"info":              {service.CodeBadName, service.CodeNotFound},
		"forget":            {service.CodeBadName, service.CodeConflict},
		"forget_rule":       {service.CodeBadName, service.CodeConflict, service.CodeBudget},
		"forget_constraint": {service.CodeBadName, service.CodeConflict},
		"info_module":       {service.CodeNotFound},
		"forget_module":     {service.CodeConfirm, service.CodeNotFound, service.CodeReferenced, service.CodeConflict},
		"checkup":           {service.CodeBudget},
	}
	w := func(name, summary string, mutating bool) Spec {
		errs := codes[name]
		if name != "spec" {
			errs = append(errs, store...)
		}
		// The DKE tools change the store without the DLI mutation law:
		// they take no fence or key (Writes, not Mutating).
		return Spec{Name: name, Summary: summary, Writes: mutating, Destructive: strings.HasPrefix(name, "forget"), Errors: errs}
	}
	Register(reg, w("compile", "Validate and store a module, then run its body once; a source that does not compile stores nothing.", true), dkeTool(s.Compile))
	Register(reg, w("run", "Execute a program once and return its transcript; nothing is left callable.", true), dkeTool(s.Run))
	Register(reg, w("spec", "Serve the DKE Python language reference, whole or one topic.", false), dkeTool(s.Spec))
	Register(reg, w("list", "List stored scripts with their signatures, standing rules, or the kinds data is stored under.", false), dkeTool(s.List))
	Register(reg, w("info", "A script's compile provenance: authority, language, manifest version.", false), dkeTool(s.Info))
	Register(reg, w("forget", "Remove one script; idempotent.", true), dkeTool(s.Forget))
	Register(reg, w("forget_rule", "Remove one standing rule and the conclusions no other rule supports.", true), dkeTool(s.ForgetRule))
	Register(reg, w("forget_constraint", "Remove one standing constraint; it withdraws nothing.", true), dkeTool(s.ForgetConstraint))
	Register(reg, w("list_modules", "List module handles: name, script count, created.", false), dkeTool(s.ListModules))
	Register(reg, w("info_module", "A module's record: language, scripts, classes, version, created, updated.", false), dkeTool(s.InfoModule))
	Register(reg, w("forget_module", "Remove a module with its scripts, kinds and their data (confirm=true).", true), dkeTool(s.ForgetModule))
	Register(reg, w("stores", "Your store's id, size and created-at.", false), dkeTool(s.Stores))
	Register(reg, w("checkup", "Does the store meet the reasoning over it: counts, then findings.", false), dkeTool(s.Checkup))
}

// dkeTool drops the call a DKE tool does not need: it reads no envelope
// field (no fence, no key); the caller's grant travels in the context.
func dkeTool[P, R any](f func(context.Context, *P) (R, error)) func(context.Context, *Call, *P) (R, error) {
	return func(ctx context.Context, _ *Call, p *P) (R, error) { return f(ctx, p) }
}
