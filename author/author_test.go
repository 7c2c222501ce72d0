package author

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// harness is a service over a fresh store, driven as a client would drive
// it (client_test.go).
type harness struct {
	t     *testing.T
	store *lorestore.Store
	svc   *Service
}

func newHarness(t *testing.T, docs ...string) *harness {
	t.Helper()
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s, err := lorestore.Init(t.TempDir(), lorestore.Options{Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	svc, err := New(Config{Store: s, Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, store: s, svc: svc}
}

// call sends one request with the given envelope fields (pairs:
// "expected_digest" or "idempotency_key", then the value) and returns the
// answer as the client reads it.
func (h *harness) call(op string, params any, env ...string) map[string]any {
	h.t.Helper()
	return callOp(testOps(h.svc), op, params, env...)
}

// ok calls and requires success.
func (h *harness) ok(op string, params any, env ...string) map[string]any {
	h.t.Helper()
	m := h.call(op, params, env...)
	if m["ok"] != true {
		h.t.Fatalf("%s: %v", op, m["error"])
	}
	return m
}

// refused calls and requires an error with this code.
func (h *harness) refused(code, op string, params any, env ...string) map[string]any {
	h.t.Helper()
	m := h.call(op, params, env...)
	e, _ := m["error"].(map[string]any)
	if m["ok"] != false || e["code"] != code {
		h.t.Fatalf("%s: want error %s, got %v", op, code, m)
	}
	return e
}

func prop() map[string]any { return map[string]any{"kind": "proposed", "origin": "session-7c9"} }

func TestStagingSession(t *testing.T) {
	h := newHarness(t, "camelot")
	open := h.ok("author.open", map[string]any{"scope": "camelot"})
	ws := open["workspace"].(string)
	d0 := open["workspace_digest"].(string)
	r := h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()}, "expected_digest", d0)
	if got := r["rendered"].([]any)[0]; got != `person mireth "Mireth"  proposed  session-7c9` && !strings.HasPrefix(got.(string), "person mireth") {
		t.Fatalf("rendered %q", got)
	}
	d1 := r["workspace_digest"].(string)
	if d1 == d0 {
		t.Fatal("digest did not move")
	}
	r = h.ok("author.add_relation", map[string]any{"workspace": ws, "relation": "serves", "from": "mireth", "to": "the-warden", "provenance": prop()})
	fs := r["findings"].([]any)
	if len(fs) != 1 || fs[0].(map[string]any)["code"] != "entity.unknown" {
		t.Fatalf("findings %v", fs)
	}
	h.refused(CodeMaterializeBlocked, "author.materialize", map[string]any{"workspace": ws})
	// Stale fence: nothing staged.
	st := h.ok("author.status", map[string]any{"workspace": ws})
	h.refused(CodeStaleFence, "author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "low-saltish", "provenance": prop()}, "expected_digest", d1)
	if st2 := h.ok("author.status", map[string]any{"workspace": ws}); st2["workspace_digest"] != st["workspace_digest"] {
		t.Fatal("a stale call staged something")
	}
	// Resolve the reference; materialize commits.
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "the-warden", "name": "The Warden", "provenance": prop()})
	m := h.ok("author.materialize", map[string]any{"workspace": ws, "rendered": true})
	if len(m["committed"].([]any)) != 3 || m["root_hash"] == "" {
		t.Fatalf("materialize %v", m)
	}
	log, err := h.store.Log(lorestore.LogOptions{From: "main", Limit: 1})
	if err != nil || !strings.HasPrefix(log[0].Message.Summary, "materialize camelot: 2 entities, 1 relation") {
		t.Fatalf("log %v %v", log, err)
	}
	// A new workspace opens on the new commit and sees the entities.
	ws2 := h.ok("author.open", map[string]any{"scope": "camelot"})
	ents := h.ok("author.entities", map[string]any{"workspace": ws2["workspace"]})
	if ents["total"].(float64) != 2 {
		t.Fatalf("entities %v", ents)
	}
}

func TestIdempotencyAndTombstones(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	p := map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()}
	first := h.ok("author.add_entity", p, "idempotency_key", "k1")
	again := h.ok("author.add_entity", p, "idempotency_key", "k1")
	if first["workspace_digest"] != again["workspace_digest"] {
		t.Fatal("retry answered differently")
	}
	st := h.ok("author.status", map[string]any{"workspace": ws})
	if n := len(st["staged"].([]any)); n != 1 {
		t.Fatalf("%d staged after a retry", n)
	}
	p2 := map[string]any{"workspace": ws, "kind": "person", "id": "galahad", "name": "Galahad", "provenance": prop()}
	h.refused(CodeKeyConflict, "author.add_entity", p2, "idempotency_key", "k1")
	d := h.ok("author.discard", map[string]any{"workspace": ws}, "idempotency_key", "kd")
	if d2 := h.ok("author.discard", map[string]any{"workspace": ws}, "idempotency_key", "kd"); d2["discarded"] != d["discarded"] {
		t.Fatal("retried discard differs")
	}
	h.refused(CodeUnknownDoc, "author.status", map[string]any{"workspace": ws})
	h.refused(CodeUnknownDoc, "author.add_entity", p2)
	// 1,024 more discards push the first tombstone out.
	for i := 0; i < maxTombstones; i++ {
		w := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
		h.ok("author.discard", map[string]any{"workspace": w})
	}
	h.refused(CodeUnknownDoc, "author.discard", map[string]any{"workspace": ws}, "idempotency_key", "kd")
}

func TestForks(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.open_question", map[string]any{"workspace": ws, "id": "where-the-first-ward-stood", "prompt": "Where did the first ward stand?"})
	opt := h.ok("author.add_option", map[string]any{"workspace": ws, "question": "where-the-first-ward-stood", "id": "the-tidewall", "label": "The Tidewall"})
	if got := opt["rendered"].([]any)[0]; got != `  option the-tidewall "The Tidewall"` {
		t.Fatalf("option rendered %q", got)
	}
	h.refused(CodeNotAFork, "author.add_hypothesis", map[string]any{"workspace": ws, "id": "coast-runs-north", "statement": "The coast runs north."})
	h.refused(CodeHypothesisInScope, "author.add_fact", map[string]any{"workspace": ws, "entity": "x", "key": "k", "value": "v",
		"provenance": map[string]any{"kind": "hypothesis", "hyp": "h"}})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	h.refused(CodeQuestionCommitted, "author.add_option", map[string]any{"workspace": ws, "question": "where-the-first-ward-stood", "id": "the-cliffs", "label": "The Cliffs"})
	h.refused(CodeUnknownFork, "author.open", map[string]any{"fork": "where-the-first-ward-stood"}) // forks resolve at start
	svc, err := New(Config{Store: h.store, Documents: []string{"camelot"}})
	if err != nil {
		t.Fatal(err)
	}
	h2 := &harness{t: t, store: h.store, svc: svc}
	fork := h2.ok("author.open", map[string]any{"fork": "where-the-first-ward-stood"})["workspace"].(string)
	h2.ok("author.add_hypothesis", map[string]any{"workspace": fork, "id": "coast-runs-north", "statement": "The coast runs north."})
	h2.refused(CodeHypothesisLimit, "author.add_hypothesis", map[string]any{"workspace": fork, "id": "second", "statement": "Another."})
	h2.refused(CodeUnknownHypothesis, "author.suppose", map[string]any{"workspace": fork, "hypotheses": []string{"nope"}})
	s := h2.ok("author.suppose", map[string]any{"workspace": fork, "hypotheses": []string{"coast-runs-north"}})
	if f := s["findings"].([]any)[0].(map[string]any); f["code"] != "consequence.changed" || f["severity"] != "warn" {
		t.Fatalf("suppose findings %v", s["findings"])
	}
	h2.refused(CodeForkLocal, "author.materialize", map[string]any{"workspace": fork})
}

func TestCacheCompilesOncePerCommit(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	before := h.svc.cache.compileCount()
	for i := 0; i < 5; i++ {
		h.ok("author.open", map[string]any{"scope": "camelot"})
	}
	if got := h.svc.cache.compileCount() - before; got != 0 {
		t.Fatalf("%d compiles for five opens on a cached commit, want 0", got)
	}
}

// TestRefusalsOfTheFrame: malformed params and refused opens stage
// nothing. (The envelope's own refusals — killed ops and versions, an
// unknown op, a fence on a read — are package worker's:
// TestDLIFrameRefusals.)
func TestRefusalsOfTheFrame(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.refused(fault.CodeUnknownField, "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "x", "name": "X",
		"provenance": prop(), "sudo": true})
	h.refused(fault.CodeUnknownField, "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "x", "name": "X",
		"provenance": map[string]any{"kind": "proposed", "origin": "s", "extra": 1}})
	h.refused(fault.CodeMissingField, "author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "x", "name": "X"})
	h.refused(fault.CodeUnknownField, "author.open", map[string]any{"scope": "camelot", "pin": "x"}) // branch is a field since DL-0130
	h.refused(CodeUnknownScope, "author.open", map[string]any{"scope": "nosuch"})
	h.refused(CodeOpenMode, "author.open", map[string]any{})
	h.refused(CodeOpenMode, "author.open", map[string]any{"scope": "camelot", "fork": "q"})
	h.refused(CodeUnknownDoc, "author.status", map[string]any{"workspace": "ws-999"})
	if st := h.ok("author.status", map[string]any{"workspace": ws}); len(st["staged"].([]any)) != 0 {
		t.Fatal("a refused call staged something")
	}
}

func TestAmbiguousFork(t *testing.T) {
	h := newHarness(t, "camelot", "logres")
	for _, scope := range []string{"camelot", "logres"} {
		ws := h.ok("author.open", map[string]any{"scope": scope})["workspace"].(string)
		h.ok("author.open_question", map[string]any{"workspace": ws, "id": "who-rules", "prompt": "Who rules?"})
		h.ok("author.add_option", map[string]any{"workspace": ws, "question": "who-rules", "id": "opt-" + scope, "label": "X"})
		h.ok("author.materialize", map[string]any{"workspace": ws})
	}
	svc, err := New(Config{Store: h.store, Documents: []string{"camelot", "logres"}})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	e := h.refused(CodeAmbiguousFork, "author.open", map[string]any{"fork": "who-rules"})
	if docs, _ := e["documents"].([]any); len(docs) != 2 {
		t.Fatalf("ambiguous fork names %v", e["documents"])
	}
}

func TestPinnedAndOtherBranches(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "first", "name": "First", "provenance": prop()})
	pin := h.ok("author.materialize", map[string]any{"workspace": ws})["root_hash"].(string)
	// A commit on another branch does not move main's base.
	if _, err := h.store.CreateBranch("side", "main"); err != nil {
		t.Fatal(err)
	}
	b := lorestore.NewBatch()
	if _, err := b.Put("camelot", &objects.Entity{Kind: objects.KindPerson, Ident: "sider", Name: "Sider", Provenance: objects.Proposed("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Commit(b, lorestore.NewMessage("side", "materialize", "camelot"), lorestore.CommitOptions{Branch: "side"}); err != nil {
		t.Fatal(err)
	}
	if r := h.ok("author.open", map[string]any{"scope": "camelot"}); r["root_hash"] != pin {
		t.Fatalf("main's base moved to %v after a commit on side", r["root_hash"])
	}
	// A pinned project keeps opening from its pin after main moves.
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "second", "name": "Second", "provenance": prop()})
	moved := h.ok("author.materialize", map[string]any{"workspace": ws})["root_hash"]
	svc, err := New(Config{Store: h.store, Documents: []string{"camelot"}, Pin: pin[:12]})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	r := h.ok("author.open", map[string]any{"scope": "camelot"})
	if r["root_hash"] != pin || r["root_hash"] == moved {
		t.Fatalf("pinned project opened on %v, pin %s", r["root_hash"], pin)
	}
	// A workspace served on another branch stages for it and materializes to it.
	side, err := New(Config{Store: h.store, Documents: []string{"camelot"}, Branch: "side"})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = side
	sw := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	ents := h.ok("author.entities", map[string]any{"workspace": sw})
	if ents["total"].(float64) != 2 { // first and sider
		t.Fatalf("side's entities: %v", ents)
	}
	h.ok("author.add_entity", map[string]any{"workspace": sw, "kind": "person", "id": "third", "name": "Third", "provenance": prop()})
	got := h.ok("author.materialize", map[string]any{"workspace": sw})["root_hash"].(string)
	head, _ := h.store.Head("side")
	if head.String() != got {
		t.Fatalf("materialized %s, side is at %s", got, head)
	}
}

// TestDigestIsTheCanonicalState holds the running digest to the RFC 8785
// digest of the staged state through appends, revisions, discards,
// hypotheses, suppositions and a materialize.
func TestDigestIsTheCanonicalState(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	check := func(step string) {
		t.Helper()
		w, err := h.svc.workspace(ws)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if want := "wd-" + jcs.Sum(w.canonicalState()).String(); w.digest != want {
			t.Fatalf("%s: digest %s, canonical state gives %s", step, w.digest, want)
		}
	}
	check("open")
	var decls []string
	for i := 0; i < 5; i++ {
		h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": fmt.Sprintf("p%d", i), "name": "P", "provenance": prop()})
		check("add")
	}
	h.ok("author.open_question", map[string]any{"workspace": ws, "id": "q", "prompt": "Q?"})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "after-q", "name": "A", "provenance": prop()})
	h.ok("author.add_option", map[string]any{"workspace": ws, "question": "q", "id": "o1", "label": "One"})
	check("option revises the question in place")
	for _, st := range h.ok("author.status", map[string]any{"workspace": ws})["staged"].([]any) {
		decls = append(decls, st.(map[string]any)["decl"].(string))
	}
	h.ok("author.discard", map[string]any{"workspace": ws, "decl": decls[2]})
	check("discard")
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "late", "name": "L", "provenance": prop()})
	check("add after discard")
	h.refused(CodeUnknownDecl, "author.discard", map[string]any{"workspace": ws, "decl": decls[2]}) // nothing staged has it now
	check("refused discard")
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	check("materialize")
}

func TestWhyOfAnUnknownAtom(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	w := h.ok("author.why", map[string]any{"workspace": ws, "atom": map[string]any{"pred": "knight", "args": []string{"nobody"}}})
	for _, k := range []string{"paths", "active_paths", "blocked_supports", "blocking_defeats", "attack_pairs"} {
		if v, ok := w[k].([]any); !ok || len(v) != 0 {
			t.Errorf("%s = %v, want []", k, w[k])
		}
	}
	if w["grade"] != "dead" {
		t.Errorf("grade %v", w["grade"])
	}
	q := h.ok("author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "knight", "args": []any{map[string]any{"var": "X"}}}, "limit": 5})
	if a, ok := q["answers"].([]any); !ok || len(a) != 0 {
		t.Errorf("answers %v, want []", q["answers"])
	}
	h.refused(fault.CodeBadParams, "author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "knight", "args": []any{map[string]any{"var": "X", "const": "y"}}}})
	h.refused(fault.CodeBadParams, "author.query", map[string]any{"workspace": ws, "goal": map[string]any{"pred": "knight", "args": []any{}}, "limit": 5000})
}

func TestQueryPages(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	for i := 0; i < 5; i++ {
		h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": fmt.Sprintf("p%d", i), "name": "P", "provenance": prop()})
	}
	goal := map[string]any{"pred": "person", "args": []any{map[string]any{"var": "X"}}}
	var got []string
	cursor := ""
	for pages := 0; pages < 5; pages++ {
		p := map[string]any{"workspace": ws, "goal": goal, "limit": 2}
		if cursor != "" {
			p["cursor"] = cursor
		}
		r := h.ok("author.query", p)
		for _, a := range r["answers"].([]any) {
			got = append(got, a.(map[string]any)["args"].([]any)[0].(string))
		}
		if r["total"].(float64) != 5 {
			t.Fatalf("total %v", r["total"])
		}
		next, _ := r["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != "p0,p1,p2,p3,p4" {
		t.Fatalf("pages gave %v", got)
	}
	first := h.ok("author.query", map[string]any{"workspace": ws, "goal": goal, "limit": 2})["next_cursor"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "p9", "name": "P", "provenance": prop()})
	h.refused(CodeStaleCursor, "author.query", map[string]any{"workspace": ws, "goal": goal, "limit": 2, "cursor": first})
	h.refused(CodeBadCursor, "author.query", map[string]any{"workspace": ws, "goal": goal, "cursor": "../../etc"})
}
