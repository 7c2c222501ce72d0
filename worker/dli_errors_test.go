package worker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/internal/testenv"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// TestOpErrorsKnown checks the error codes every author op names: each is
// an author code (author.ErrorCodes) and not a protocol one (Spec.Errors are the
// codes beyond the protocol's), none twice, every author op names some,
// and every mutating op names the mutation law's three.
func TestOpErrorsKnown(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	ops := h.reg.Ops(ProfileExtended)
	if len(ops) < 30 {
		t.Fatalf("only %d ops registered", len(ops))
	}
	for _, op := range ops {
		if len(op.Errors) == 0 {
			t.Errorf("%s names no error codes", op.Name)
		}
		seen := map[string]bool{}
		for _, code := range op.Errors {
			if _, ok := author.ErrorCodes[code]; !ok {
				t.Errorf("%s names %q, which is not in author.ErrorCodes", op.Name, code)
			}
			if _, ok := ProtocolCodes[code]; ok {
				t.Errorf("%s names protocol code %q", op.Name, code)
			}
			if seen[code] {
				t.Errorf("%s names %q twice", op.Name, code)
			}
			seen[code] = true
		}
		if op.Mutating {
			for _, code := range lawErrors {
				if !seen[code] {
					t.Errorf("mutating %s does not name %s", op.Name, code)
				}
			}
		}
	}
}

// TestOpErrorsProvoked provokes one code of a sample of ops and requires
// the op to name it: a listed code the handler answers with.
func TestOpErrorsProvoked(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	entity := func(kind string) map[string]any {
		return map[string]any{"workspace": ws, "kind": kind, "id": "mireth", "name": "Mireth", "provenance": prop()}
	}
	hypProv := map[string]any{"kind": "hypothesis", "hyp": "h1"}
	zeros := strings.Repeat("0", 64)
	cases := []struct {
		op, code string
		params   map[string]any
		env      []string
	}{
		{"author.open", author.CodeUnknownScope, map[string]any{"scope": "avalon"}, nil},
		{"author.open", author.CodeOpenMode, map[string]any{}, nil},
		{"author.open", author.CodeUnknownBranch, map[string]any{"scope": "camelot", "branch": "nosuch"}, nil},
		{"author.add_entity", author.CodeUnknownDoc, map[string]any{"workspace": "ws-nope", "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()}, nil},
		{"author.add_entity", author.CodeStaleFence, entity("person"), []string{"expected_digest", "not-the-digest"}},
		{"author.add_entity", author.CodeInvalidObject, entity("village"), nil},
		{"author.add_fact", author.CodeHypothesisInScope, map[string]any{"workspace": ws, "entity": "mireth", "key": "k", "value": "v", "provenance": hypProv}, nil},
		{"author.add_state", author.CodeHypothesisInScope, map[string]any{"workspace": ws, "entity": "mireth", "key": "k", "value": "v", "since": "e1", "provenance": hypProv}, nil},
		{"author.add_hypothesis", author.CodeNotAFork, map[string]any{"workspace": ws, "id": "h1", "statement": "s"}, nil},
		{"author.add_option", author.CodeUnknownQuestion, map[string]any{"workspace": ws, "question": "q", "id": "o", "label": "O"}, nil},
		{"author.suppose", author.CodeNotAFork, map[string]any{"workspace": ws, "hypotheses": []string{"h1"}}, nil},
		{"author.discard", author.CodeUnknownDecl, map[string]any{"workspace": ws, "decl": zeros}, nil},
		{"author.history", author.CodeUnknownClaim, map[string]any{"workspace": ws, "claim": zeros}, nil},
		{"author.status", author.CodeUnknownDoc, map[string]any{"workspace": "ws-nope"}, nil},
		{"author.set_standing", author.CodeUnknownClaim, map[string]any{"workspace": ws, "claim_id": zeros, "decision": "dl-0001"}, nil},
		{"author.branch", author.CodeUnknownBranch, map[string]any{"workspace": ws, "action": "create", "name": "b", "from": "nosuch"}, nil},
		{"author.merge", author.CodeUnknownBranch, map[string]any{"workspace": ws, "source": "nosuch"}, nil},
	}
	for _, c := range cases {
		t.Run(c.op+"/"+c.code, func(t *testing.T) {
			requireListed(t, h, c.op, c.code)
			h.t = t
			h.refused(c.code, c.op, c.params, c.env...)
		})
	}
	// Codes that need a first call to succeed: the same call again is
	// refused.
	h.t = t
	again := []struct {
		op, code string
		params   map[string]any
		env      []string
	}{
		{"author.add_entity", author.CodeKeyConflict, entity("person"), []string{"idempotency_key", "k1"}},
		{"author.open_question", author.CodeQuestionExists, map[string]any{"workspace": ws, "id": "q1", "prompt": "Where?"}, nil},
		{"author.add_option", author.CodeOptionExists, map[string]any{"workspace": ws, "question": "q1", "id": "o1", "label": "Here"}, nil},
		{"author.record_decision", author.CodeDecisionExists, map[string]any{"workspace": ws, "decision": "dl-0001"}, nil},
	}
	for _, c := range again {
		h.ok(c.op, c.params, c.env...)
		if c.code == author.CodeKeyConflict {
			c.params = entity("place") // the same key for another call
		}
		requireListed(t, h, c.op, c.code)
		h.refused(c.code, c.op, c.params, c.env...)
	}
	// A rule whose head variable the body does not bind is refused whole.
	requireListed(t, h, "author.add_rule", author.CodeRuleRefused)
	h.refused(author.CodeRuleRefused, "author.add_rule", map[string]any{"workspace": ws, "name": "r", "provenance": prop(),
		"head": map[string]any{"pred": "p", "args": []any{map[string]any{"var": "X"}}},
		"body": []any{map[string]any{"atom": map[string]any{"pred": "q", "args": []any{map[string]any{"var": "Y"}}}, "negated": false}}})
	requireListed(t, h, "dli.name.check", author.CodeUnknownDialect)
	h.refused(author.CodeUnknownDialect, "dli.name.check", map[string]any{"name": "Mirwen", "dialect": "no-such-speech"})
}

// requireListed requires op to name code among its errors.
func requireListed(t *testing.T, h *dliHarness, op, code string) {
	t.Helper()
	o, ok := h.reg.Lookup(op)
	if !ok {
		t.Fatalf("no op %s", op)
	}
	for _, c := range o.Errors {
		if c == code {
			return
		}
	}
	t.Errorf("%s answers %s but does not name it (names %v)", op, code, o.Errors)
}

// TestClaimParamsSchema checks the params schema of every claim op against
// its decoder: closed, "workspace" plus the object's fields without
// "type", and the object's required fields required.
func TestClaimParamsSchema(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	n := 0
	for _, op := range h.reg.Ops(ProfileExtended) {
		if _, ok := op.ParamsSchema()["description"].(string); !ok || !strings.Contains(op.ParamsSchema()["description"].(string), "object registry") {
			continue
		}
		n++
		s := op.ParamsSchema()
		b, _ := json.Marshal(s)
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		props := back["properties"].(map[string]any)
		if back["additionalProperties"] != false || props["workspace"] == nil || props["type"] != nil {
			t.Errorf("%s: schema %s", op.Name, b)
		}
		req := map[string]bool{}
		for _, r := range back["required"].([]any) {
			req[r.(string)] = true
		}
		if !req["workspace"] {
			t.Errorf("%s: workspace not required", op.Name)
		}
		typ := objects.Type(strings.Fields(strings.TrimPrefix(s["description"].(string), "the workspace and the fields of one "))[0])
		fields := objects.Fields(typ)
		if fields == nil || len(props) != len(fields)+1 {
			t.Errorf("%s: %d properties for %d fields of %s", op.Name, len(props), len(fields), typ)
		}
		for _, f := range fields {
			if props[f.Name] == nil || req[f.Name] != f.Required {
				t.Errorf("%s: field %s (required %v) in schema as %v, required %v", op.Name, f.Name, f.Required, props[f.Name], req[f.Name])
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d claim ops found", n)
	}
}

// Over a store opened read-only at a commit, every op that would commit
// refuses with pinned-project, not as an internal failure, and writes
// nothing.
func TestReadOnlyStoreRefusesCommits(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	open := h.ok("author.open", map[string]any{"scope": "camelot"})
	ws := open["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	head, err := h.store.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	ro, err := lorestore.OpenAt(h.store.Dir(), head.String(), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	svc, err := author.New(author.Config{Store: ro, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	RegisterAuthor(reg, svc)
	rh := &dliHarness{t: t, store: ro, svc: svc, reg: reg}
	ws2 := rh.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	rh.ok("author.add_entity", map[string]any{"workspace": ws2, "kind": "person", "id": "galahad", "name": "Galahad", "provenance": prop()})
	before := testenv.Branches(t, h.store.Dir()) // HEAD, packed-refs, every ref (DL-0431)
	rh.refused(author.CodePinnedProject, "author.materialize", map[string]any{"workspace": ws2})
	rh.refused(author.CodePinnedProject, "author.record_decision", map[string]any{"workspace": ws2, "decision": "d-1"})
	testenv.SameBranches(t, "a refused commit on a pinned store", before, testenv.Branches(t, h.store.Dir()))
}

// TestDLIFrameRefusals: the envelope's own refusals of a DLI call — a
// killed op names its replacement, an unknown op, a killed or unknown
// contract version, a fence or key on a read — answer before any use case
// runs.
func TestDLIFrameRefusals(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	e := h.refused(CodeKilledOp, "author.commit", map[string]any{"workspace": ws})
	if e["replacement"] != "author.materialize" {
		t.Fatalf("killed op: %v", e)
	}
	h.refused(CodeUnknownOp, "author.nope", map[string]any{})
	h.refused(CodeKilledVersion, "author.status", map[string]any{"workspace": ws}, "dli", "1.0.0")
	h.refused(CodeBadVersion, "author.status", map[string]any{"workspace": ws}, "dli", "2.1.0")
	h.refused(CodeNotMutating, "author.status", map[string]any{"workspace": ws}, "expected_digest", "wd-x")
	// A required field is required at every depth: an atom without a pred.
	h.refused(CodeMissingField, "author.why", map[string]any{"workspace": ws, "atom": map[string]any{"args": []string{"x"}}})
	if st := h.ok("author.status", map[string]any{"workspace": ws}); len(st["staged"].([]any)) != 0 {
		t.Fatal("a refused call staged something")
	}
}

func TestDeclarationProfiles(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	want := map[string]bool{
		"author.declare_functional": true, "author.assert_same_as": true, "author.add_rule": true, "author.add_state": true,
		"author.declare_inertial": false, "author.assert_predicate_same_as": false,
	}
	fiction := map[string]bool{}
	for _, op := range h.reg.Ops(ProfileFiction) {
		fiction[op.Name] = true
	}
	extended := map[string]bool{}
	for _, op := range h.reg.Ops(ProfileExtended) {
		extended[op.Name] = op.Mutating
	}
	for name, inFiction := range want {
		if fiction[name] != inFiction {
			t.Errorf("%s in the fiction profile: %v, want %v", name, fiction[name], inFiction)
		}
		if !extended[name] {
			t.Errorf("%s is not a mutating op of the extended profile", name)
		}
	}
}

func TestExpertOpsProfile(t *testing.T) {
	h := newDLIHarness(t, "camelot")
	for _, name := range []string{"author.add_dialect", "author.add_word", "author.add_name", "author.add_derivation",
		"author.add_ledger_entry", "author.add_transition", "dli.name.check"} {
		op, ok := h.reg.Lookup(name)
		switch {
		case !ok:
			t.Errorf("%s is not served", name)
		case op.InProfile(ProfileFiction) || !op.InProfile(ProfileExtended):
			t.Errorf("%s: fiction %v, extended %v; want the extended profile only", name, op.InProfile(ProfileFiction), op.InProfile(ProfileExtended))
		case op.Mutating != strings.HasPrefix(name, "author."):
			t.Errorf("%s: mutating %v", name, op.Mutating)
		}
	}
}
