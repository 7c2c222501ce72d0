package author

import (
	"strings"
	"testing"

	"github.com/deloreis/deloreis/datalog"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
	"github.com/deloreis/deloreis/world"
)

func cited(state string, ds ...string) map[string]any {
	return map[string]any{"kind": "cited", "decisions": ds, "state": state}
}

// ledgerWorld opens a scope workspace over camelot with the given claims
// materialized (each a params map for the op named by its "op" key).
func ledgerWorld(t *testing.T, claims ...map[string]any) (*harness, string) {
	t.Helper()
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	for _, c := range claims {
		p := map[string]any{"workspace": ws}
		op := ""
		for k, v := range c {
			if k == "op" {
				op = v.(string)
				continue
			}
			p[k] = v
		}
		h.ok(op, p)
	}
	if len(claims) > 0 {
		h.ok("author.materialize", map[string]any{"workspace": ws})
	}
	return h, ws
}

func (h *harness) mainHead() string {
	h.t.Helper()
	c, err := h.store.Head("main")
	if err != nil {
		h.t.Fatal(err)
	}
	return c.String()
}

// claimID is the id of a claim object built as the ops build it.
func claimID(t *testing.T, o objects.Object) string {
	t.Helper()
	id, err := o.ID()
	if err != nil {
		t.Fatal(err)
	}
	return id.String()
}

func TestRecordDecisionsBatch(t *testing.T) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-base", "rationale": "the old canon"})
	// A staged claim stays staged across the batch: the digest is the staged state's.
	st := h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	digest := st["workspace_digest"].(string)
	r := h.ok("author.record_decisions", map[string]any{"workspace": ws, "records": []any{
		map[string]any{"decision": "d-a", "provenance": cited("provisional", "d-c")},        // forward
		map[string]any{"decision": "d-b", "provenance": cited("ratified", "d-c", "d-base")}, // forward and base
		map[string]any{"decision": "d-c", "provenance": cited("provisional", "d-a")},        // cyclic with d-a
		map[string]any{"decision": "d-d", "provenance": map[string]any{"kind": "proposed", "origin": "s-1"}},
	}})
	if r["workspace_digest"] != digest {
		t.Fatalf("digest moved: %v → %v", digest, r["workspace_digest"])
	}
	if r["root_hash"] != h.mainHead() || len(r["committed"].([]any)) != 4 {
		t.Fatalf("result %v, head %s", r, h.mainHead())
	}
	log, err := h.store.Log(lorestore.LogOptions{From: "main", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := log[0].Message
	if m.Summary != "record decisions camelot: 4" || m.Get(lorestore.TrailerOp) != "record_decisions" ||
		strings.Join(m.All(lorestore.TrailerDecision), ",") != "d-a,d-b,d-c,d-d" {
		t.Fatalf("message %+v", m)
	}
	// The staged entity is still staged over the new base, and the decisions are read.
	status := h.ok("author.status", map[string]any{"workspace": ws})
	if len(status["staged"].([]any)) != 1 || status["root_hash"] != h.mainHead() {
		t.Fatalf("status %v", status)
	}
	chk := h.ok("author.check", map[string]any{"workspace": ws})
	if chk["errors"].(float64) != 0 {
		t.Fatalf("findings after the batch: %v", chk["findings"])
	}
	// A workspace opened now reads the new commit from the cache: no compile.
	before := h.svc.cache.compileCount()
	h.ok("author.open", map[string]any{"scope": "camelot"})
	if n := h.svc.cache.compileCount() - before; n != 0 {
		t.Fatalf("%d compiles opening the recorded commit", n)
	}
}

func TestRecordDecisionsRefusals(t *testing.T) {
	tests := []struct {
		name    string
		records []any
		code    string
		index   float64
	}{
		{"unknown citation", []any{
			map[string]any{"decision": "d-1"},
			map[string]any{"decision": "d-2", "provenance": cited("provisional", "d-1")},
			map[string]any{"decision": "d-3", "provenance": cited("provisional", "d-nowhere")},
		}, CodeUnknownDecision, 2},
		{"repeat in batch", []any{
			map[string]any{"decision": "d-1"}, map[string]any{"decision": "d-2"}, map[string]any{"decision": "d-1"},
		}, CodeDecisionExists, 2},
		{"already recorded", []any{map[string]any{"decision": "d-1"}, map[string]any{"decision": "d-old"}}, CodeDecisionExists, 1},
		{"hypothesis provenance", []any{
			map[string]any{"decision": "d-1"}, map[string]any{"decision": "d-2", "provenance": map[string]any{"kind": "hypothesis", "hyp": "h"}},
		}, CodeHypothesisInScope, 1},
		{"bad id", []any{map[string]any{"decision": "d-1"}, map[string]any{"decision": "Not An Id"}}, CodeInvalidObject, 1},
		{"bad provenance", []any{map[string]any{"decision": "d-1", "provenance": map[string]any{"kind": "cited", "state": "ratified"}}}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ws := ledgerWorld(t)
			h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-old"})
			head := h.mainHead()
			m := h.call("author.record_decisions", map[string]any{"workspace": ws, "records": tc.records})
			e, _ := m["error"].(map[string]any)
			if m["ok"] != false || (tc.code != "" && e["code"] != tc.code) || e["record_index"] != tc.index {
				t.Fatalf("got %v", m)
			}
			if h.mainHead() != head {
				t.Fatal("a refused batch wrote a commit")
			}
			st := h.ok("author.status", map[string]any{"workspace": ws})
			if st["root_hash"] != head {
				t.Fatalf("workspace moved: %v", st["root_hash"])
			}
		})
	}
}

func TestLedgerOpsAreScopeOnly(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.open_question", map[string]any{"workspace": ws, "id": "q", "prompt": "Which?"})
	h.ok("author.add_option", map[string]any{"workspace": ws, "question": "q", "id": "o1", "label": "One"})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	// Forks are resolved when a service starts: start another.
	svc, err := New(Config{Store: h.store, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	fork := h.ok("author.open", map[string]any{"fork": "q"})["workspace"].(string)
	head := h.mainHead()
	h.refused(CodeForkLocal, "author.record_decision", map[string]any{"workspace": fork, "decision": "d-1"})
	if h.mainHead() != head {
		t.Fatal("a fork recorded a decision")
	}
}

// standingWorld: one fact cited provisional by d-1 and another claim of the
// same atom cited by d-2, plus a lone provisional fact cited by d-1.
func standingWorld(t *testing.T) (*harness, string, string, string) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decisions", map[string]any{"workspace": ws, "records": []any{
		map[string]any{"decision": "d-1"}, map[string]any{"decision": "d-2"}}})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": cited("provisional", "d-1")})
	h.ok("author.add_relation", map[string]any{"workspace": ws, "relation": "knows", "from": "mireth", "to": "mireth", "provenance": cited("provisional", "d-1")})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	// The same atom again under d-2 (another claim: another provenance).
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": cited("provisional", "d-2")})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	shared := claimID(t, &objects.Fact{Entity: "mireth", Key: "tongue", Value: "saltish", Provenance: objects.Cited(objects.CitedProvisional, "d-1")})
	lone := claimID(t, &objects.Relation{Relation: "knows", From: "mireth", To: "mireth", Provenance: objects.Cited(objects.CitedProvisional, "d-1")})
	return h, ws, shared, lone
}

func TestSetStanding(t *testing.T) {
	h, ws, shared, lone := standingWorld(t)
	head := h.mainHead()
	e := h.refused(CodeNotOnEveryPath, "author.set_standing", map[string]any{"workspace": ws, "claim_id": shared, "decision": "d-1"})
	if p, _ := e["path"].([]any); len(p) != 1 || p[0] != "d:d-2" {
		t.Fatalf("missing path %v", e)
	}
	h.refused(CodeUnknownDecision, "author.set_standing", map[string]any{"workspace": ws, "claim_id": lone, "decision": "d-9"})
	h.refused(CodeUnknownClaim, "author.set_standing", map[string]any{"workspace": ws, "claim_id": strings.Repeat("ab", 32), "decision": "d-1"})
	h.refused(CodeNotOnEveryPath, "author.set_standing", map[string]any{"workspace": ws, "claim_id": lone, "decision": "d-2"})
	if h.mainHead() != head {
		t.Fatal("a refusal committed")
	}
	// A staged claim is not stored.
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "age", "value": "old", "provenance": cited("provisional", "d-1")})
	staged := claimID(t, &objects.Fact{Entity: "mireth", Key: "age", Value: "old", Provenance: objects.Cited(objects.CitedProvisional, "d-1")})
	h.refused(CodeUnknownClaim, "author.set_standing", map[string]any{"workspace": ws, "claim_id": staged, "decision": "d-1"})
	digest := h.ok("author.status", map[string]any{"workspace": ws})["workspace_digest"]

	r := h.ok("author.set_standing", map[string]any{"workspace": ws, "claim_id": lone, "decision": "d-1"})
	if r["workspace_digest"] != digest || r["root_hash"] != h.mainHead() {
		t.Fatalf("set_standing %v", r)
	}
	hist := h.ok("author.history", map[string]any{"workspace": ws, "claim": lone})
	if st := hist["standing"].([]any); len(st) != 1 {
		t.Fatalf("history %v", hist)
	}
	// Ratified now: a second ruling is refused.
	h.refused(CodeNotProvisional, "author.set_standing", map[string]any{"workspace": ws, "claim_id": lone, "decision": "d-1"})
	// A proposed claim has no provisional standing to promote.
	ent := claimID(t, &objects.Entity{Kind: objects.KindPerson, Ident: "mireth", Name: "Mireth", Provenance: objects.Proposed("session-7c9")})
	h.refused(CodeNotProvisional, "author.set_standing", map[string]any{"workspace": ws, "claim_id": ent, "decision": "d-1"})
}

// gradeOf reads a claim's grade in a workspace's world.
func (h *harness) grade(ws, claim string) datalog.Grade {
	h.t.Helper()
	w, _ := h.svc.workspace(ws)
	id, err := objects.ParseID(claim)
	if err != nil {
		h.t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.world.ClaimGrade(id)
}

// worldOf is a workspace's current world.
func (h *harness) worldOf(ws string) *world.World {
	h.t.Helper()
	w, err := h.svc.workspace(ws)
	if err != nil {
		h.t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.world
}

// defeatWorld: a fact cited by d-1.
func defeatWorld(t *testing.T) (*harness, string, string) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-1"})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": cited("provisional", "d-1")})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	return h, ws, claimID(t, &objects.Fact{Entity: "mireth", Key: "tongue", Value: "saltish", Provenance: objects.Cited(objects.CitedProvisional, "d-1")})
}

func TestDefeatAndRestore(t *testing.T) {
	h, ws, fact := defeatWorld(t)
	if g := h.grade(ws, fact); g != datalog.Certain {
		t.Fatalf("before: %v", g)
	}
	before := h.svc.cache.compileCount()
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-2", "defeated_decision": "d-1"})
	if g := h.grade(ws, fact); g != datalog.Dead {
		t.Fatalf("after defeat: %v", g)
	}
	q := h.ok("author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "tongue", "args": []any{map[string]any{"var": "X"}, map[string]any{"var": "Y"}}}})
	if ans := q["answers"].([]any); len(ans) != 1 || ans[0].(map[string]any)["grade"] != "dead" {
		t.Fatalf("query after defeat: %v", q)
	}
	// Defeat of the defeater: d-3 attacks d-2 (an attacker in the claim's graph).
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-3", "defeated_decision": "d-2"})
	if g := h.grade(ws, fact); g != datalog.Certain {
		t.Fatalf("after defeating the defeater: %v", g)
	}
	if n := h.svc.cache.compileCount() - before; n != 0 {
		t.Fatalf("%d compiles for two defeats", n)
	}
	// A fresh workspace (and a fresh compile of the commit) agrees.
	h.svc.cache = newWorldCache(16)
	ws2 := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	if g := h.grade(ws2, fact); g != datalog.Certain {
		t.Fatalf("recompiled: %v", g)
	}
	hist := h.ok("author.history", map[string]any{"workspace": ws2, "claim": fact})
	if a := hist["attacks"].([]any); len(a) != 2 {
		t.Fatalf("attacks %v", hist)
	}
	// Refusals: the same attack again; a decision neither on a path nor attacking.
	head := h.mainHead()
	h.refused(CodeAttackExists, "author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-2", "defeated_decision": "d-1"})
	if h.mainHead() != head {
		t.Fatal("a repeated attack committed")
	}
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-9"})
	head = h.mainHead()
	h.refused(CodeNotOnEveryPath, "author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-4", "defeated_decision": "d-9"})
	h.refused(CodeUnknownDecision, "author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-4", "defeated_decision": "d-nope"})
	h.refused(CodeUnknownClaim, "author.defeat", map[string]any{"workspace": ws, "claim_id": strings.Repeat("0f", 32), "decision": "d-4", "defeated_decision": "d-1"})
	if h.mainHead() != head {
		t.Fatal("a refused defeat committed")
	}
}

func TestDefeatOddCycle(t *testing.T) {
	h, ws, fact := defeatWorld(t)
	// d-2 attacks d-1, d-3 attacks d-2, d-1 attacks d-3: a 3-cycle.
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-2", "defeated_decision": "d-1"})
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-3", "defeated_decision": "d-2"})
	if g := h.grade(ws, fact); g != datalog.Certain {
		t.Fatalf("restored: %v", g)
	}
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-1", "defeated_decision": "d-3"})
	if g := h.grade(ws, fact); g != datalog.Possible {
		t.Fatalf("odd cycle: %v, want possible", g)
	}
}

func TestDefeatRuleDecisionKillsDerivations(t *testing.T) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-rule"})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": cited("ratified", "d-rule")})
	h.ok("author.add_relation", map[string]any{"workspace": ws, "relation": "serves", "from": "mireth", "to": "mireth", "provenance": cited("ratified", "d-rule")})
	rule := &objects.Rule{Name: "loyal", Head: objects.Atom{Pred: "loyal", Args: []objects.Term{{Var: "X"}}},
		Body:       []objects.Literal{{Atom: objects.Atom{Pred: "serves", Args: []objects.Term{{Var: "X"}, {Var: "Y"}}}}},
		Provenance: objects.Cited(objects.CitedProvisional, "d-rule")}
	w, _ := h.svc.workspace(ws)
	w.mu.Lock()
	_, err := w.stage([]objects.Object{rule}, nil)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.ok("author.materialize", map[string]any{"workspace": ws})
	if g := h.worldOf(ws).Grade("loyal", "mireth"); g != datalog.Certain {
		t.Fatalf("derivation before: %v", g)
	}
	// Defeat d-rule on the rule claim: the rule's firing dies, the facts stand.
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": claimID(t, rule), "decision": "d-veto", "defeated_decision": "d-rule"})
	w2 := h.worldOf(ws)
	if g := w2.Grade("loyal", "mireth"); g != datalog.Dead {
		t.Fatalf("derivation after: %v", g)
	}
	if g := w2.Grade("serves", "mireth", "mireth"); g != datalog.Certain {
		t.Fatalf("the fact: %v", g)
	}
}

func TestDefeatSameAsUnmerges(t *testing.T) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-same"})
	for _, id := range []string{"galahad", "the-white-knight"} {
		h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": id, "name": id, "provenance": cited("ratified", "d-same")})
	}
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "the-white-knight", "key": "shield", "value": "white", "provenance": cited("ratified", "d-same")})
	link := &objects.SameAs{Left: "galahad", Right: "the-white-knight", Provenance: objects.Cited(objects.CitedProvisional, "d-same")}
	w, _ := h.svc.workspace(ws)
	w.mu.Lock()
	_, err := w.stage([]objects.Object{link}, nil)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.ok("author.materialize", map[string]any{"workspace": ws})
	if g := h.worldOf(ws).Grade("shield", "galahad", "white"); g != datalog.Certain {
		t.Fatalf("merged: %v", g)
	}
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": claimID(t, link), "decision": "d-apart", "defeated_decision": "d-same"})
	w2 := h.worldOf(ws)
	if g := w2.Grade("shield", "galahad", "white"); g != datalog.Dead {
		t.Fatalf("after defeating the link: %v", g)
	}
	if g := w2.Grade("shield", "the-white-knight", "white"); g != datalog.Certain {
		t.Fatalf("the fact of its own entity: %v", g)
	}
}

func TestMaterializeWithDecision(t *testing.T) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decisions", map[string]any{"workspace": ws, "records": []any{
		map[string]any{"decision": "d-accept"}, map[string]any{"decision": "d-own"}}})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "galahad", "name": "Galahad", "provenance": prop()})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": prop()})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "home", "value": "the-ward", "provenance": cited("provisional", "d-own")})
	h.ok("author.open_question", map[string]any{"workspace": ws, "id": "q", "prompt": "Which coast?"})
	h.ok("author.add_option", map[string]any{"workspace": ws, "question": "q", "id": "north", "label": "North", "implies": map[string]any{"pred": "coast", "args": []any{"north"}}})
	link := &objects.SameAs{Left: "mireth", Right: "galahad", Provenance: objects.Proposed("session-7c9")}
	rule := &objects.Rule{Name: "speaks", Head: objects.Atom{Pred: "speaks", Args: []objects.Term{{Var: "X"}}},
		Body: []objects.Literal{{Atom: objects.Atom{Pred: "tongue", Args: []objects.Term{{Var: "X"}, {Var: "Y"}}}}}, Provenance: objects.Proposed("session-7c9")}
	w, _ := h.svc.workspace(ws)
	w.mu.Lock()
	_, err := w.stage([]objects.Object{link, rule}, nil)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	// An unrecorded decision is refused and nothing is written.
	head := h.mainHead()
	h.refused(CodeUnknownDecision, "author.materialize", map[string]any{"workspace": ws, "decision": "d-nope"})
	if h.mainHead() != head {
		t.Fatal("refused materialize committed")
	}
	r := h.ok("author.materialize", map[string]any{"workspace": ws, "decision": "d-accept", "rendered": true})
	stamps := r["stamped"].([]any)
	if len(stamps) != 3 { // two entities and the proposed fact
		t.Fatalf("stamped %v", stamps)
	}
	var ratify map[string]any
	for _, c := range r["committed"].([]any) {
		if c.(map[string]any)["type"] == "ratify" {
			ratify = c.(map[string]any)["object"].(map[string]any)
		}
	}
	if ratify == nil || len(ratify["claims"].([]any)) != 3 || ratify["decision"] != "d-accept" {
		t.Fatalf("ratify %v", ratify)
	}
	for _, s := range stamps {
		to := s.(map[string]any)["to"].(string)
		if !contains(anyStrings(ratify["claims"]), to) {
			t.Fatalf("stamp %v not ratified", s)
		}
		if g := h.grade(ws, to); g != datalog.Certain {
			t.Fatalf("stamped claim %s: %v", to, g)
		}
	}
	log, _ := h.store.Log(lorestore.LogOptions{From: "main", Limit: 1})
	if got := log[0].Message.All(lorestore.TrailerDecision); len(got) != 1 || got[0] != "d-accept" {
		t.Fatalf("trailers %v", log[0].Message.Trailers)
	}
	wd := h.worldOf(ws)
	own := claimID(t, &objects.Fact{Entity: "mireth", Key: "home", Value: "the-ward", Provenance: objects.Cited(objects.CitedProvisional, "d-own")})
	if g := h.grade(ws, own); g != datalog.Certain {
		t.Fatalf("own-cited fact: %v", g)
	}
	if g := h.grade(ws, claimID(t, link)); g != datalog.Possible {
		t.Fatalf("carriage link stamped: %v", g)
	}
	if g := wd.Grade("speaks", "mireth"); g != datalog.Possible {
		t.Fatalf("rule derivation: %v, want possible (the rule is not stamped)", g)
	}
	if g := wd.Grade("coast", "north"); g != datalog.Possible {
		t.Fatalf("option-implied atom: %v", g)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestMaterializeWithDecisionRechecks(t *testing.T) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decision", map[string]any{"workspace": ws, "decision": "d-1"})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": cited("ratified", "d-1")})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": cited("ratified", "d-1")})
	w, _ := h.svc.workspace(ws)
	w.mu.Lock()
	_, err := w.stage([]objects.Object{&objects.Functional{Pred: "tongue", Provenance: objects.Cited(objects.CitedRatified, "d-1")}}, nil)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.ok("author.materialize", map[string]any{"workspace": ws})
	// A second, proposed value is possible: no violation until it is stamped certain.
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "highish", "provenance": prop()})
	if c := h.ok("author.check", map[string]any{"workspace": ws}); c["errors"].(float64) != 0 {
		t.Fatalf("findings before stamping: %v", c["findings"])
	}
	head := h.mainHead()
	e := h.refused(CodeMaterializeBlocked, "author.materialize", map[string]any{"workspace": ws, "decision": "d-1"})
	if fs := e["findings"].([]any); len(fs) != 1 || fs[0].(map[string]any)["code"] != "continuity.fd-violation" {
		t.Fatalf("findings %v", e["findings"])
	}
	if h.mainHead() != head {
		t.Fatal("blocked materialize committed")
	}
	// A staged claim a ledger record names by id cannot keep that citation.
	id := claimID(t, &objects.Fact{Entity: "mireth", Key: "tongue", Value: "highish", Provenance: objects.Proposed("session-7c9")})
	pid, _ := objects.ParseID(id)
	w.mu.Lock()
	_, err = w.stage([]objects.Object{&objects.Standing{Claim: pid, Standing: objects.StandingProvisional, Decision: "d-1"}}, nil)
	w.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.refused(CodeStampCitation, "author.materialize", map[string]any{"workspace": ws, "decision": "d-1"})
	// Without a decision the layer commits as staged.
	h.ok("author.materialize", map[string]any{"workspace": ws})
}

func TestRecordDecisionsOverAMovedBranch(t *testing.T) {
	h, ws1 := ledgerWorld(t)
	ws2 := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws1, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	digest := h.ok("author.status", map[string]any{"workspace": ws1})["workspace_digest"]
	h.ok("author.record_decision", map[string]any{"workspace": ws2, "decision": "d-1"})
	moved := h.mainHead()
	// ws1 still stands on the old base: over the moved head, d-1 is recorded already.
	e := h.refused(CodeDecisionExists, "author.record_decisions", map[string]any{"workspace": ws1, "records": []any{
		map[string]any{"decision": "d-0"}, map[string]any{"decision": "d-1"}}})
	if e["record_index"] != float64(1) || h.mainHead() != moved {
		t.Fatalf("refusal %v, head %s", e, h.mainHead())
	}
	// The workspace's own pre-image does not hold d-1: citing it is refused there.
	h.refused(CodeUnknownDecision, "author.record_decisions", map[string]any{"workspace": ws1, "records": []any{
		map[string]any{"decision": "d-2", "provenance": cited("provisional", "d-1")}}})
	// A batch that passes over both commits on top of the moved head.
	r := h.ok("author.record_decisions", map[string]any{"workspace": ws1, "records": []any{map[string]any{"decision": "d-2"}}})
	log, err := h.store.Log(lorestore.LogOptions{From: "main", Limit: 1})
	if err != nil || log[0].Parents[0].String() != moved || r["root_hash"] != h.mainHead() || r["workspace_digest"] != digest {
		t.Fatalf("result %v, log %v %v", r, log, err)
	}
	st := h.ok("author.status", map[string]any{"workspace": ws1})
	if st["root_hash"] != h.mainHead() || len(st["staged"].([]any)) != 1 {
		t.Fatalf("status %v", st)
	}
}

func TestLedgerErrorCodesRegistered(t *testing.T) {
	for _, code := range []string{CodeDecisionExists, CodeUnknownDecision, CodeUnknownClaim, CodeNotProvisional, CodeNotOnEveryPath,
		CodeAttackExists, CodeClaimDead, CodeStampCitation, CodeEvidenceCorrupt, CodeUnknownCanonRev} {
		if _, ok := ErrorCodes[code]; !ok {
			t.Errorf("%s is not in ErrorCodes", code)
		}
	}
}
