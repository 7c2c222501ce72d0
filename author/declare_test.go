package author

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/worker"
)

func v(name string) map[string]any  { return map[string]any{"var": name} }
func k(value string) map[string]any { return map[string]any{"const": value} }
func atom(pred string, args ...map[string]any) map[string]any {
	return map[string]any{"pred": pred, "args": args}
}
func lit(a map[string]any, negated bool) map[string]any {
	return map[string]any{"atom": a, "negated": negated}
}
func cited(ds ...string) map[string]any {
	return map[string]any{"kind": "cited", "decisions": ds, "state": "ratified"}
}

// ruleParams is an author.add_rule request.
func ruleParams(ws, name string, head map[string]any, body ...map[string]any) map[string]any {
	return map[string]any{"workspace": ws, "name": name, "head": head, "body": body, "provenance": prop()}
}

// codes lists the codes of a findings array of a response.
func codes(fs any) []string {
	out := []string{}
	list, _ := fs.([]any) // a status with no findings has null
	for _, f := range list {
		out = append(out, f.(map[string]any)["code"].(string))
	}
	return out
}

func TestDeclarationProfiles(t *testing.T) {
	h := newHarness(t, "camelot")
	want := map[string]bool{
		"author.declare_functional": true, "author.assert_same_as": true, "author.add_rule": true, "author.add_state": true,
		"author.declare_inertial": false, "author.assert_predicate_same_as": false,
	}
	fiction := map[string]bool{}
	for _, op := range h.reg.Ops(worker.ProfileFiction) {
		fiction[op.Name] = true
	}
	extended := map[string]bool{}
	for _, op := range h.reg.Ops(worker.ProfileExtended) {
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

// TestAddRuleRefusals: each pre-staging check refuses the whole add with
// rule-refused naming its finding, and leaves the digest and the staged
// list as they were.
func TestAddRuleRefusals(t *testing.T) {
	h := newHarness(t, "camelot")
	base := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	// A committed rule, for the duplicate against the compiled base.
	h.ok("author.add_rule", ruleParams(base, "kin-of", atom("kin", v("X"), v("Y")), lit(atom("sibling", v("X"), v("Y")), false)))
	h.ok("author.materialize", map[string]any{"workspace": base})

	cases := []struct {
		name  string
		setup []map[string]any // rules staged first (as ruleParams without workspace)
		rule  func(ws string) map[string]any
		code  string
		in    string // a fragment of the message
	}{
		{"unbound head variable", nil, func(ws string) map[string]any {
			return ruleParams(ws, "heir", atom("heir", v("X"), v("Z")), lit(atom("child", v("X"), v("Y")), false))
		}, "rule.unbound-variable", "variable Z in the head"},
		{"unbound negated variable", nil, func(ws string) map[string]any {
			return ruleParams(ws, "lonely", atom("lonely", v("X")), lit(atom("person", v("X")), false), lit(atom("friend", v("X"), v("Y")), true))
		}, "rule.unbound-variable", "not friend"},
		{"unbound before duplicate", nil, func(ws string) map[string]any {
			return ruleParams(ws, "kin-of", atom("kin", v("X"), v("Q")), lit(atom("sibling", v("X"), v("Y")), false))
		}, "rule.unbound-variable", "variable Q"},
		{"duplicate of the base", nil, func(ws string) map[string]any {
			return ruleParams(ws, "kin-of", atom("kin", v("Y"), v("X")), lit(atom("sibling", v("X"), v("Y")), false))
		}, "rule.duplicate", `"kin-of"`},
		{"duplicate of a staged rule", []map[string]any{
			{"name": "ally", "head": atom("ally", v("X"), v("Y")), "body": []any{lit(atom("sworn", v("X"), v("Y")), false)}},
		}, func(ws string) map[string]any {
			return ruleParams(ws, "ally", atom("ally", v("Y"), v("X")), lit(atom("sworn", v("X"), v("Y")), false))
		}, "rule.duplicate", `"ally"`},
		{"unstratifiable with a staged rule", []map[string]any{
			{"name": "wins", "head": atom("wins", v("X")), "body": []any{lit(atom("move", v("X"), v("Y")), false), lit(atom("loses", v("Y")), true)}},
		}, func(ws string) map[string]any {
			return ruleParams(ws, "loses-rule", atom("loses", v("X")), lit(atom("move", v("X"), v("Y")), false), lit(atom("wins", v("Y")), true))
		}, "rule.unstratifiable", "loses-rule"},
		{"unstratifiable alone", nil, func(ws string) map[string]any {
			return ruleParams(ws, "liar", atom("liar", v("X")), lit(atom("speaks", v("X")), false), lit(atom("liar", v("X")), true))
		}, "rule.unstratifiable", "liar"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
			for _, r := range c.setup {
				p := map[string]any{"workspace": ws, "provenance": prop()}
				for k, v := range r {
					p[k] = v
				}
				h.ok("author.add_rule", p)
			}
			before := h.ok("author.status", map[string]any{"workspace": ws})
			e := h.refused(CodeRuleRefused, "author.add_rule", c.rule(ws))
			if e["class"] != string(worker.ClassRefused) {
				t.Errorf("class %v", e["class"])
			}
			msg, _ := e["message"].(string)
			if !strings.Contains(msg, c.code) || !strings.Contains(msg, c.in) {
				t.Errorf("message %q: want %s and %q", msg, c.code, c.in)
			}
			if e["finding"] != c.code {
				t.Errorf("error finding %v, want %s", e["finding"], c.code)
			}
			if fs, _ := e["findings"].([]any); len(fs) == 0 || codes(fs)[0] != c.code {
				t.Errorf("error findings %v", e["findings"])
			}
			after := h.ok("author.status", map[string]any{"workspace": ws})
			if after["workspace_digest"] != before["workspace_digest"] || len(after["staged"].([]any)) != len(before["staged"].([]any)) {
				t.Errorf("a refused rule moved the workspace: %v → %v", before["workspace_digest"], after["workspace_digest"])
			}
			if len(codes(after["findings"])) != len(codes(before["findings"])) {
				t.Errorf("a refused rule brought findings: %v", after["findings"])
			}
		})
	}
}

// TestAddRuleStagesThenBlocks: the ordinary census findings of a rule
// stage it and bar materialize; a clean rule derives.
func TestAddRuleStagesThenBlocks(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	p := ruleParams(ws, "heir", atom("heir", v("X"), v("Y")), lit(atom("child", v("Y"), v("X")), false))
	p["provenance"] = cited("no-such-ruling")
	r := h.ok("author.add_rule", p)
	if got := codes(r["findings"]); len(got) != 1 || got[0] != "citation.unknown-decision" {
		t.Fatalf("findings %v", got)
	}
	if st := h.ok("author.status", map[string]any{"workspace": ws}); len(st["staged"].([]any)) != 1 {
		t.Fatalf("staged %v", st["staged"])
	}
	h.refused(CodeMaterializeBlocked, "author.materialize", map[string]any{"workspace": ws})

	// A clean rule over a fact derives, and materializes.
	ws2 := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws2, "kind": "person", "id": "arthur", "name": "Arthur", "provenance": prop()})
	h.ok("author.add_relation", map[string]any{"workspace": ws2, "relation": "child", "from": "mordred", "to": "arthur", "provenance": prop()})
	h.ok("author.add_entity", map[string]any{"workspace": ws2, "kind": "person", "id": "mordred", "name": "Mordred", "provenance": prop()})
	r = h.ok("author.add_rule", ruleParams(ws2, "heir", atom("heir", v("X"), v("Y")), lit(atom("child", v("Y"), v("X")), false)))
	if len(r["findings"].([]any)) != 0 || !strings.Contains(r["rendered"].([]any)[0].(string), "heir") {
		t.Fatalf("clean rule: %v", r)
	}
	q := h.ok("author.query", map[string]any{"workspace": ws2, "goal": atom("heir", v("X"), v("Y"))})
	if ans := q["answers"].([]any); len(ans) != 1 {
		t.Fatalf("answers %v", q)
	}
	h.ok("author.materialize", map[string]any{"workspace": ws2})
}

// TestSameAsStageTimeFindings: the three stage-time identity findings come
// back on the staging call, and the claim is staged in each case.
func TestSameAsStageTimeFindings(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	for _, e := range [][2]string{{"person", "arthur"}, {"person", "the-once-king"}, {"place", "camelot-castle"}, {"era", "the-long-peace"}} {
		h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": e[0], "id": e[1], "name": e[1], "provenance": prop()})
	}
	cases := []struct {
		left, right string
		want        string // "" for none
		severity    string
	}{
		{"arthur", "arthur", "identity.self-merge", "warn"},
		{"arthur", "the-long-peace", "identity.temporal-unsupported", "error"},
		{"arthur", "camelot-castle", "identity.sort-mismatch", "warn"},
		{"arthur", "the-once-king", "", ""},
	}
	for _, c := range cases {
		st := h.ok("author.status", map[string]any{"workspace": ws})
		r := h.ok("author.assert_same_as", map[string]any{"workspace": ws, "left": c.left, "right": c.right, "provenance": prop()})
		fs := r["findings"].([]any)
		if c.want == "" {
			if len(fs) != 0 {
				t.Errorf("%s = %s: findings %v", c.left, c.right, fs)
			}
		} else if len(fs) != 1 || fs[0].(map[string]any)["code"] != c.want || fs[0].(map[string]any)["severity"] != c.severity {
			t.Errorf("%s = %s: findings %v, want one %s %s", c.left, c.right, fs, c.severity, c.want)
		}
		if r["workspace_digest"] == st["workspace_digest"] {
			t.Errorf("%s = %s was not staged", c.left, c.right)
		}
	}
	// The temporal one blocks; discarding it unblocks.
	chk := h.ok("author.check", map[string]any{"workspace": ws})
	if chk["blocked"] != true {
		t.Fatalf("check %v", chk)
	}
}
