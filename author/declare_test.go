package author

import (
	"slices"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

func v(name string) map[string]any  { return map[string]any{"var": name} }
func k(value string) map[string]any { return map[string]any{"const": value} }
func atom(pred string, args ...map[string]any) map[string]any {
	return map[string]any{"pred": pred, "args": args}
}
func lit(a map[string]any, negated bool) map[string]any {
	return map[string]any{"atom": a, "negated": negated}
}
func citedRatified(ds ...string) map[string]any {
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
		}, "rule.unbound-variable", "Variable Z in the head"},
		{"unbound negated variable", nil, func(ws string) map[string]any {
			return ruleParams(ws, "lonely", atom("lonely", v("X")), lit(atom("person", v("X")), false), lit(atom("friend", v("X"), v("Y")), true))
		}, "rule.unbound-variable", "not friend"},
		{"unbound before duplicate", nil, func(ws string) map[string]any {
			return ruleParams(ws, "kin-of", atom("kin", v("X"), v("Q")), lit(atom("sibling", v("X"), v("Y")), false))
		}, "rule.unbound-variable", "Variable Q"},
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
			if e["class"] != string(fault.Refused) {
				t.Errorf("class %v", e["class"])
			}
			msg, _ := e["message"].(string)
			if !strings.Contains(msg, c.code) || !strings.Contains(msg, c.in) {
				t.Errorf("message %q: want %s and %q", msg, c.code, c.in)
			}
			if e["finding"] != c.code {
				t.Errorf("error finding %v, want %s", e["finding"], c.code)
			}
			fs, _ := e["findings"].([]any)
			if len(fs) == 0 || codes(fs)[0] != c.code {
				t.Fatalf("error findings %v", e["findings"])
			}
			// The first finding is the refused rule's own.
			if rule := fs[0].(map[string]any)["data"].(map[string]any)["rule"]; rule != c.rule(ws)["name"] {
				t.Errorf("first finding is about rule %v, want %v", rule, c.rule(ws)["name"])
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
	p["provenance"] = citedRatified("no-such-ruling")
	r := h.ok("author.add_rule", p)
	if got := codes(r["findings"]); len(got) != 1 || got[0] != "citation.unknown-decision" {
		t.Fatalf("findings %v", got)
	}
	if st := h.ok("author.status", map[string]any{"workspace": ws}); len(st["staged"].([]any)) != 1 {
		t.Fatalf("staged %v", st["staged"])
	}
	h.refused(CodeMaterializeBlocked, "author.materialize", map[string]any{"workspace": ws})

	// A control character has no canonical form, so it cannot be staged
	// even to block: the rule is refused at decode, as every add is
	// (DL-0122), and the census code is in the error's problems.
	st := h.ok("author.status", map[string]any{"workspace": ws})
	e := h.refused(CodeInvalidObject, "author.add_rule", ruleParams(ws, "bell", atom("bell", v("X")), lit(atom("rings", v("X"), k("ding\u0007")), false)))
	if e["class"] != string(fault.Invalid) || e["field"] != "body[0].atom.args[1].const" {
		t.Errorf("control character: %v", e)
	}
	if ps, _ := e["problems"].([]any); len(ps) != 1 || ps[0].(map[string]any)["code"] != "field.control-char" {
		t.Errorf("control character problems: %v", e["problems"])
	}
	if st2 := h.ok("author.status", map[string]any{"workspace": ws}); st2["workspace_digest"] != st["workspace_digest"] {
		t.Error("a rule with a control character moved the workspace")
	}

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
	// The temporal one blocks materialize.
	chk := h.ok("author.check", map[string]any{"workspace": ws})
	if chk["blocked"] != true {
		t.Fatalf("check %v", chk)
	}
}

// TestPredicateIdentityDefeated: a certain predicate identity merges the
// property for queries, rules and the FD check; once an attack defeats the
// decision it cites (committed with lorestore directly, as author.defeat
// would), a workspace opened after reads the merge's consequences reverted
// — derived facts dead, the FD finding gone — and the source facts still
// certain under their own names.
func TestPredicateIdentityDefeated(t *testing.T) {
	h := newHarness(t, "saga")
	canon := objects.Cited(objects.CitedRatified, "canon")
	psa := &objects.PredicateSameAs{Left: "home", Right: "dwelling", Provenance: objects.Cited(objects.CitedRatified, "merge-ruling")}
	psaID, err := psa.ID()
	if err != nil {
		t.Fatal(err)
	}
	commitSaga(t, h, "the saga",
		&objects.Decision{Ident: "canon"}, &objects.Decision{Ident: "merge-ruling"},
		&objects.Entity{Kind: objects.KindPerson, Ident: "sigrun", Name: "Sigrun", Provenance: canon},
		&objects.Entity{Kind: objects.KindPerson, Ident: "hogni", Name: "Hogni", Provenance: canon},
		&objects.Functional{Pred: "home", Provenance: canon},
		&objects.Fact{Entity: "sigrun", Key: "home", Value: "the-north", Provenance: canon},
		&objects.Fact{Entity: "sigrun", Key: "dwelling", Value: "the-south", Provenance: canon},
		&objects.Fact{Entity: "hogni", Key: "dwelling", Value: "the-east", Provenance: canon},
		&objects.Rule{Name: "housed", Head: objects.Atom{Pred: "housed", Args: []objects.Term{objects.Var("X")}},
			Body: []objects.Literal{{Atom: objects.Atom{Pred: "home", Args: []objects.Term{objects.Var("X"), objects.Var("Y")}}}}, Provenance: canon},
		psa,
	)
	ws, g, fs := readSagaGrades(t, h)
	for _, a := range []string{"home hogni the-east", "home sigrun the-south", "dwelling sigrun the-north", "housed hogni", "housed sigrun"} {
		if g[a] != datalog.Certain {
			t.Errorf("merged: %s is %s, want certain", a, g[a])
		}
	}
	if !slices.Contains(fs, world.CodeFDViolation) {
		t.Errorf("merged: findings %v, want %s", fs, world.CodeFDViolation)
	}
	q := h.ok("author.query", map[string]any{"workspace": ws.ID(), "goal": atom("home", v("X"), v("Y"))})
	if q["total"].(float64) != 3 {
		t.Errorf("merged: query home %v", q)
	}

	commitSaga(t, h, "defeat the merge", &objects.Decision{Ident: "retcon"}, &objects.Attack{Attacker: "retcon", Target: "merge-ruling", Claim: psaID})
	ws, g, fs = readSagaGrades(t, h)
	if got := ws.world.ClaimGrade(psaID); got != datalog.Dead {
		t.Errorf("defeated identity claim is %s", got)
	}
	for _, a := range []string{"home hogni the-east", "home sigrun the-south", "dwelling sigrun the-north", "housed hogni"} {
		if g[a] != datalog.Dead {
			t.Errorf("defeated: %s is %s, want dead", a, g[a])
		}
	}
	for _, a := range []string{"home sigrun the-north", "dwelling sigrun the-south", "dwelling hogni the-east", "housed sigrun"} {
		if g[a] != datalog.Certain {
			t.Errorf("defeated: source %s is %s, want certain", a, g[a])
		}
	}
	if slices.Contains(fs, world.CodeFDViolation) || slices.Contains(fs, world.CodePolicyPromoted) {
		t.Errorf("defeated: findings %v still hold the merge's", fs)
	}
	q = h.ok("author.query", map[string]any{"workspace": ws.ID(), "goal": atom("home", v("X"), v("Y"))})
	// The query still lists the merged answers, each now dead.
	for _, a := range q["answers"].([]any) {
		a := a.(map[string]any)
		args := a["args"].([]any)
		want := "dead"
		if args[0] == "sigrun" && args[1] == "the-north" {
			want = "certain"
		}
		if a["grade"] != want {
			t.Errorf("defeated: home(%v, %v) answers %v, want %s", args[0], args[1], a["grade"], want)
		}
	}
}

// commitSaga commits objs to the saga scope with lorestore directly, as
// author.defeat would.
func commitSaga(t *testing.T, h *harness, summary string, objs ...objects.Object) {
	t.Helper()
	b := lorestore.NewBatch()
	for _, o := range objs {
		if _, err := b.Put("saga", o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage(summary, "materialize", "saga"), lorestore.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// readSagaGrades opens a saga workspace and reads the grades of the home,
// dwelling and housed atoms TestPredicateIdentityDefeated checks, keyed by
// the atom's words, and the codes of its findings.
func readSagaGrades(t *testing.T, h *harness) (*Workspace, map[string]datalog.Grade, []string) {
	t.Helper()
	ws, err := h.svc.Open("saga", "")
	if err != nil {
		t.Fatal(err)
	}
	g := map[string]datalog.Grade{}
	for _, a := range [][]string{
		{"home", "hogni", "the-east"}, {"home", "sigrun", "the-south"}, {"home", "sigrun", "the-north"},
		{"dwelling", "hogni", "the-east"}, {"dwelling", "sigrun", "the-south"}, {"dwelling", "sigrun", "the-north"},
		{"housed", "hogni"}, {"housed", "sigrun"},
	} {
		g[strings.Join(a, " ")] = ws.world.Grade(a[0], a[1:]...)
	}
	var fs []string
	for _, f := range ws.world.Findings() {
		fs = append(fs, f.Code)
	}
	return ws, g, fs
}

// TestPredicateSelfIdentityWarns: a predicate declared the same as itself
// is staged with a self-merge warning on the call (DL-0123), and nothing
// blocks.
func TestPredicateSelfIdentityWarns(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	d0 := h.ok("author.status", map[string]any{"workspace": ws})["workspace_digest"]
	r := h.ok("author.assert_predicate_same_as", map[string]any{"workspace": ws, "left": "home", "right": "home", "provenance": prop()})
	fs := r["findings"].([]any)
	if len(fs) != 1 || fs[0].(map[string]any)["code"] != "identity.self-merge" || fs[0].(map[string]any)["severity"] != "warn" {
		t.Fatalf("findings %v", fs)
	}
	if r["workspace_digest"] == d0 {
		t.Fatal("the self-identity was not staged")
	}
	r = h.ok("author.assert_predicate_same_as", map[string]any{"workspace": ws, "left": "home", "right": "dwelling", "provenance": prop()})
	if fs := r["findings"].([]any); len(fs) != 0 {
		t.Fatalf("a proposed identity brought findings %v", fs)
	}
	if chk := h.ok("author.check", map[string]any{"workspace": ws}); chk["blocked"] != false {
		t.Fatalf("check %v", chk)
	}
}
