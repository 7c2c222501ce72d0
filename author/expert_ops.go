// The expert authoring ops of DLI section 3.17: the language lane
// (author.add_dialect, author.add_word, author.add_name,
// author.add_derivation and dli.name.check, the naming oracle), and the
// continuity/ledger pair (author.add_transition, author.add_ledger_entry).
// Every author op here stages like any other add, under the mutation law,
// and answers with the feedback contract; all are in the extended profile
// only.

package author

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

// The expert lane's error codes.
const (
	CodeUnknownDialect = "unknown-dialect"
)

func init() { ErrorCodes[CodeUnknownDialect] = fault.NotFound }

// TransitionParams change a fluent slot's value at an anchor:
// {workspace, entity, key, value, at, provenance}. They are decoded as the
// State they stage (since = at), so the fields are checked as a state's.
type TransitionParams struct {
	Workspace string
	State     *objects.State
}

// JSONSchema states what TransitionParams accepts (worker.Schemer).
func (TransitionParams) JSONSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"workspace":  str("the workspace id author.open returned (ws-N)"),
			"entity":     str("the entity id"),
			"key":        str("the fluent key (a predicate name)"),
			"value":      str("the new value"),
			"at":         str("the anchor (event or instant id) the new value holds from"),
			"provenance": map[string]any{"type": "object", "description": "proposed, hypothesis or cited, as every claim's"},
		},
		"required":             []string{"workspace", "entity", "key", "value", "at", "provenance"},
		"additionalProperties": false,
	}
}

// UnmarshalJSON decodes the params through objects.Decode, strictly.
func (p *TransitionParams) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params must be a JSON object")
	}
	for _, f := range []string{"since", "until", "type"} {
		if _, ok := fields[f]; ok {
			return fault.Errorf(fault.Invalid, fault.CodeUnknownField, `params has no field %q; a transition holds from "at" and stays open`, f).With("field", f)
		}
	}
	at, ok := fields["at"]
	if !ok {
		return fault.Errorf(fault.Invalid, fault.CodeMissingField, `params needs field "at": the anchor the new value holds from`).With("field", "at")
	}
	delete(fields, "at")
	fields["since"] = at
	var cp ClaimParams[*objects.State]
	body, _ := json.Marshal(fields)
	if err := cp.UnmarshalJSON(body); err != nil {
		if we, ok := err.(*fault.Error); ok && we.Data["field"] == "since" {
			return sinceAsAt(we) // the name the caller used
		}
		return err
	}
	p.Workspace, p.State = cp.Workspace, cp.Object
	return nil
}

// sinceAsAt renames the state's field since, in a decode error of a
// transition's params, to at, the field the caller wrote.
func sinceAsAt(we *fault.Error) *fault.Error {
	c := we.With("field", "at")
	c.Message = strings.Replace(c.Message, "since", "at", 1)
	if ps, ok := c.Data["problems"].([]map[string]string); ok {
		renamed := make([]map[string]string, len(ps))
		for i, p := range ps {
			renamed[i] = p
			if p["field"] == "since" {
				renamed[i] = map[string]string{"field": "at", "code": p["code"], "message": strings.Replace(p["message"], "since", "at", 1)}
			}
		}
		c = c.With("problems", renamed)
	}
	return c
}

func (s *Service) AddTransition(ctx context.Context, g Guard, p *TransitionParams) (StageResult, error) {
	return mutate(s, g, p, p.Workspace, func(ws *Workspace) (StageResult, error) {
		defer s.under(ws, ctx)()
		st := p.State
		if err := ws.checkProvenance(st); err != nil {
			return StageResult{}, err
		}
		add := []objects.Object{st}
		open := ws.world.OpenValues(st.Entity, st.Key)
		for _, ov := range open {
			// The value open elsewhere ends where the new one begins: the
			// before-fact settles their order, unless the chronology
			// already orders the anchors (either way round: a new value at
			// an earlier anchor is a back-fill the later value bounds), or
			// the open value is already ordered before another open value
			// (that one's order settles it too).
			if ov.Since == st.Since || ov.Value == st.Value ||
				ws.world.Precedes(ov.Since, st.Since) || ws.world.Precedes(st.Since, ov.Since) || beforeAnother(ws.world, ov, open) {
				continue
			}
			b := &objects.Before{Earlier: ov.Since, Later: st.Since, Provenance: st.Provenance}
			if !containsObject(add, b) {
				add = append(add, b)
			}
		}
		fs, err := ws.stage(add, nil)
		if err != nil {
			return StageResult{}, err
		}
		res := StageResult{WorkspaceDigest: ws.digest, Rendered: []string{}, Findings: boundFindings(fs)}
		for _, o := range add {
			res.Rendered = append(res.Rendered, dli.RenderDecl(o)...)
		}
		return res, nil
	})
}

// beforeAnother reports whether the open value ov is certainly ordered
// before another open value of its slot.
func beforeAnother(w *world.World, ov world.OpenValue, open []world.OpenValue) bool {
	for _, o := range open {
		if o.Since != ov.Since && w.Precedes(ov.Since, o.Since) {
			return true
		}
	}
	return false
}

// containsObject reports whether objs holds an object with o's id.
func containsObject(objs []objects.Object, o objects.Object) bool {
	id, _ := o.ID()
	for _, x := range objs {
		if xid, _ := x.ID(); xid == id {
			return true
		}
	}
	return false
}

// NameCheckParams ask the oracle of a dialect about a name. With a
// workspace, the dialect is the one its scope declares (staged or
// committed), else the project's; without, the project's.
type NameCheckParams struct {
	Name      string `json:"name" desc:"the name to check: data, up to 64 KiB"`
	Dialect   string `json:"dialect" desc:"the id of the dialect to check against: one the workspace's scope declares, else one of the project's"`
	Workspace string `json:"workspace,omitempty" desc:"a workspace id (ws-N) whose scope's dialects (staged or committed) come before the project's; absent: the project's only"`
}

// Validate checks the params' shape: the name is data, the dialect an id.
func (p *NameCheckParams) Validate() error {
	if p.Name == "" {
		return fault.Errorf(fault.Invalid, fault.CodeMissingField, `params needs field "name"`).With("field", "name")
	}
	if len(p.Name) > objects.MaxTextLen {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: name is longer than %d bytes", objects.MaxTextLen).With("field", "name")
	}
	if !objects.ValidID(p.Dialect) {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: dialect must be a dialect id").With("field", "dialect")
	}
	return nil
}

// NameCheckResult is the oracle's verdict. vetted (not ok: ok is the
// envelope's) says whether the name passed; source says where the dialect
// came from: "scope" or "project".
type NameCheckResult struct {
	Dialect   string                `json:"dialect" desc:"the dialect id the name was checked against"`
	Source    string                `json:"source" desc:"where the dialect came from: scope or project"`
	Vetted    bool                  `json:"vetted" desc:"the oracle's verdict: true when there is no problem"`
	Syllables []string              `json:"syllables" desc:"the syllables the name divides into, lower case"`
	Problems  []objects.NameProblem `json:"problems" desc:"why the name does not pass: {code, at (rune offset), message}"`
}

func (s *Service) NameCheck(_ context.Context, p *NameCheckParams) (NameCheckResult, error) {
	type found struct {
		d      *objects.Dialect
		source string
	}
	var f found
	if p.Workspace != "" {
		var err error
		f, err = read(s, p.Workspace, func(ws *Workspace) (found, error) {
			d, ok := ws.world.Dialect(p.Dialect)
			if !ok {
				return found{}, nil
			}
			if cfg, ok := s.configuredDialect(p.Dialect); ok && cfg == d {
				return found{d, "project"}, nil
			}
			return found{d, "scope"}, nil
		})
		if err != nil {
			return NameCheckResult{}, err
		}
	} else if cfg, ok := s.configuredDialect(p.Dialect); ok {
		f = found{cfg, "project"}
	}
	d, source := f.d, f.source
	if d == nil {
		return NameCheckResult{}, fault.Errorf(fault.NotFound, CodeUnknownDialect,
			"No dialect %q is configured in the project file%s; add a [[dialect]] table or stage one with author.add_dialect.", p.Dialect,
			map[bool]string{true: " or declared in the workspace's scope", false: ""}[p.Workspace != ""]).With("dialect", p.Dialect)
	}
	check := d.CheckName(p.Name)
	return NameCheckResult{Dialect: d.Ident, Source: source, Vetted: check.Vetted, Syllables: check.Syllables, Problems: check.Problems}, nil
}

// configuredDialect is the project file's dialect of an id.
func (s *Service) configuredDialect(id string) (*objects.Dialect, bool) {
	for _, d := range s.dialects() {
		if d.Ident == id {
			return d, true
		}
	}
	return nil, false
}
