// The thirteen tools as worker ops, and how a response becomes the MCP
// result's _meta and text.

package service

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/deloreis/deloreis/mcpserve"
	"github.com/deloreis/deloreis/worker"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Register adds the contract's tools to reg as ops named as the contract
// names them.
func Register(reg *worker.Registry, s *Service) {
	// Every tool but spec names a store, under a grant when one is given.
	store := []string{CodeBadStore, CodeWrongStore, CodeReadOnly}
	codes := map[string][]string{
		"compile":           {CodeBadName, CodeCompileError, CodeNotFound, CodeConflict},
		"run":               {CodeCompileError, CodeRefused, CodeConflict},
		"spec":              {CodeNotFound},
		"info":              {CodeBadName, CodeNotFound},
		"forget":            {CodeBadName, CodeConflict},
		"forget_rule":       {CodeBadName, CodeConflict},
		"forget_constraint": {CodeBadName, CodeConflict},
		"info_module":       {CodeNotFound},
		"forget_module":     {CodeConfirm, CodeNotFound, CodeReferenced, CodeConflict},
	}
	w := func(name, summary string, mutating bool) worker.Spec {
		errs := codes[name]
		if name != "spec" {
			errs = append(errs, store...)
		}
		// The DKE tools change the store without the DLI mutation law:
		// they take no fence or key (Writes, not Mutating).
		return worker.Spec{Name: name, Summary: summary, Writes: mutating, Destructive: strings.HasPrefix(name, "forget"), Errors: errs}
	}
	worker.Register(reg, w("compile", "Validate and store a module, then run its body once; a source that does not compile stores nothing.", true), adapt(s.Compile))
	worker.Register(reg, w("run", "Execute a program once and return its transcript; nothing is left callable.", true), adapt(s.Run))
	worker.Register(reg, w("spec", "Serve the DKE Python language reference, whole or one topic.", false), adapt(s.Spec))
	worker.Register(reg, w("list", "List stored scripts with their signatures, standing rules, or the kinds data is stored under.", false), adapt(s.List))
	worker.Register(reg, w("info", "A script's compile provenance: authority, language, manifest version.", false), adapt(s.Info))
	worker.Register(reg, w("forget", "Remove one script; idempotent.", true), adapt(s.Forget))
	worker.Register(reg, w("forget_rule", "Remove one standing rule and the conclusions no other rule supports.", true), adapt(s.ForgetRule))
	worker.Register(reg, w("forget_constraint", "Remove one standing constraint; it withdraws nothing.", true), adapt(s.ForgetConstraint))
	worker.Register(reg, w("list_modules", "List module handles: name, script count, created.", false), adapt(s.ListModules))
	worker.Register(reg, w("info_module", "A module's record: language, scripts, classes, version, created, updated.", false), adapt(s.InfoModule))
	worker.Register(reg, w("forget_module", "Remove a module with its scripts, kinds and their data (confirm=true).", true), adapt(s.ForgetModule))
	worker.Register(reg, w("stores", "Your store's id, size and created-at.", false), adapt(s.Stores))
	worker.Register(reg, w("checkup", "Does the store meet the reasoning over it: counts, then findings.", false), adapt(s.Checkup))
}

// adapt drops the worker call a tool does not need.
func adapt[P, R any](f func(context.Context, *P) (R, error)) func(context.Context, *worker.Call, *P) (R, error) {
	return func(ctx context.Context, _ *worker.Call, p *P) (R, error) { return f(ctx, p) }
}

// MCPOptions adapt mcpserve to the DKE contract: the server's name, the
// _meta of every result (§4.1, §6.1) and the human text of each tool.
func MCPOptions() mcpserve.Options {
	return mcpserve.Options{Name: "deloreis-dke", Version: "dke-1", Meta: meta, Text: text}
}

// meta is a result's _meta: status, and for a compile error its
// compile_status and diagnostics.
func meta(_ *worker.Op, resp worker.Response) mcp.Meta {
	if resp.Err != nil {
		if resp.Err.Code == CodeCompileError {
			return mcp.Meta{"status": "compile_error", "compile_status": resp.Err.Data["compile_status"], "diagnostics": resp.Err.Data["diagnostics"]}
		}
		return mcp.Meta{"status": "error", "code": resp.Err.Code}
	}
	var r struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	switch r.Status {
	case "ok", "success", "":
		return mcp.Meta{"status": "success"}
	}
	return mcp.Meta{"status": "runtime_error"}
}

// text is a result's text content: the transcript or the tool's text, or
// the refusal's message.
func text(_ *worker.Op, resp worker.Response) string {
	if resp.Err != nil {
		return "error: " + resp.Err.Message
	}
	var r struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(resp.Result, &r)
	return r.Text
}
