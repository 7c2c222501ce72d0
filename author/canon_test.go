package author

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// canonWorld: decisions, a ratified materialize, a dead (defeated) fact, a
// possible proposed fact, and an event.
func canonWorld(t *testing.T) (*harness, string) {
	h, ws := ledgerWorld(t)
	h.ok("author.record_decisions", map[string]any{"workspace": ws, "records": []any{
		map[string]any{"decision": "d-accept", "rationale": "the session's facts"},
		map[string]any{"decision": "d-old", "provenance": cited("provisional", "d-root")},
		map[string]any{"decision": "d-root"},
		map[string]any{"decision": "d-unused"}}})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "era", "id": "salt-years", "name": "The Salt Years", "provenance": prop()})
	h.ok("author.add_event", map[string]any{"workspace": ws, "id": "the-drowning", "era": "salt-years", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws, "decision": "d-accept"})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "tongue", "value": "saltish", "provenance": cited("provisional", "d-old")})
	h.ok("author.add_fact", map[string]any{"workspace": ws, "entity": "mireth", "key": "home", "value": "the-ward", "provenance": prop()})
	h.ok("author.materialize", map[string]any{"workspace": ws})
	dead := claimID(t, &objects.Fact{Entity: "mireth", Key: "tongue", Value: "saltish", Provenance: objects.Cited(objects.CitedProvisional, "d-old")})
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": dead, "decision": "d-veto", "defeated_decision": "d-old"})
	return h, ws
}

func TestCanonExport(t *testing.T) {
	h, _ := canonWorld(t)
	c, err := h.svc.Canon("camelot", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Commit != h.mainHead() || !sort.StringsAreSorted(c.Strings) {
		t.Fatalf("commit %s, strings sorted %v", c.Commit, sort.StringsAreSorted(c.Strings))
	}
	for i := 1; i < len(c.Strings); i++ {
		if c.Strings[i] == c.Strings[i-1] {
			t.Fatalf("string %q interned twice", c.Strings[i])
		}
	}
	str := func(i int) string { return c.Strings[i] }
	preds := map[string]int{}
	for _, p := range c.Predicates {
		preds[str(p.Pred)] = len(p.Atoms)
	}
	// Entities (stamped: certain), the event's two atoms, the possible proposed fact; the defeated fact is gone.
	want := map[string]int{"person": 1, "era": 1, "event": 1, "during": 1, "home": 1}
	if len(preds) != len(want) {
		t.Fatalf("predicates %v", preds)
	}
	for p, n := range want {
		if preds[p] != n {
			t.Fatalf("predicates %v, want %v", preds, want)
		}
	}
	grades := map[string]int{}
	for _, cl := range c.Claims {
		grades[cl.Grade]++
	}
	if grades["certain"] != 3 || grades["possible"] != 1 || len(c.Claims) != 4 {
		t.Fatalf("grades %v", grades)
	}
	// The defeated fact's attack is not needed; the decisions are those the supports name.
	var decs []string
	for _, d := range c.Decisions {
		decs = append(decs, str(d.ID))
	}
	if len(decs) != 1 || decs[0] != "d-accept" || len(c.Attacks) != 0 {
		t.Fatalf("decisions %v attacks %v", decs, c.Attacks)
	}
	if r := c.Decisions[0].Rationale; r == nil || str(*r) != "the session's facts" {
		t.Fatalf("rationale %v", r)
	}
	// At the commit before the defeat, the fact is in with its decision chain and no attack.
	prev, err := h.svc.Canon("camelot", "main~1")
	if err != nil {
		t.Fatal(err)
	}
	decs = nil
	for _, d := range prev.Decisions {
		decs = append(decs, prev.Strings[d.ID])
	}
	if len(prev.Claims) != 5 || len(decs) != 3 || decs[0] != "d-accept" || decs[1] != "d-old" || decs[2] != "d-root" {
		t.Fatalf("before the defeat: %d claims, decisions %v", len(prev.Claims), decs)
	}
	if _, err := h.svc.Canon("camelot", "no-such-branch"); !isCode(err, CodeUnknownCanonRev) {
		t.Fatalf("unknown rev: %v", err)
	}
	if _, err := h.svc.Canon("logres", ""); !isCode(err, CodeUnknownScope) {
		t.Fatalf("unknown scope: %v", err)
	}
}

func TestCanonExportAttacks(t *testing.T) {
	h, ws, fact := defeatWorld(t)
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-2", "defeated_decision": "d-1"})
	h.ok("author.defeat", map[string]any{"workspace": ws, "claim_id": fact, "decision": "d-3", "defeated_decision": "d-2"})
	c, err := h.svc.Canon("camelot", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Attacks) != 2 || len(c.Decisions) != 3 {
		t.Fatalf("attacks %v decisions %v", c.Attacks, c.Decisions)
	}
	a := c.Attacks[0]
	if c.Strings[c.Claims[a.Claim].ID] != fact {
		t.Fatalf("attack claim %v", a)
	}
}

func isCode(err error, code string) bool {
	var we *fault.Error
	return errors.As(err, &we) && we.Code == code
}

func TestCanonEvidenceCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		trailers []string
		ratify   bool
		ok       bool
	}{
		{"trailer without ratify", []string{"d-accept"}, false, false},
		{"ratify without trailer", nil, true, false},
		{"other decision", []string{"d-other"}, true, false},
		{"matching", []string{"d-accept"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := canonWorld(t)
			if _, err := h.svc.Canon("camelot", ""); err != nil {
				t.Fatalf("clean history: %v", err)
			}
			b := lorestore.NewBatch()
			f := &objects.Fact{Entity: "mireth", Key: "age", Value: "old", Provenance: objects.Cited(objects.CitedRatified, "d-accept")}
			if _, err := b.Put("camelot", f); err != nil {
				t.Fatal(err)
			}
			if tc.ratify {
				fid, _ := f.ID()
				if _, err := b.Put("camelot", &objects.Ratify{Decision: "d-accept", Claims: []objects.ID{fid}}); err != nil {
					t.Fatal(err)
				}
			}
			m := lorestore.NewMessage("materialize camelot: 1 fact", "materialize", "camelot")
			for _, d := range tc.trailers {
				m.Trailers = append(m.Trailers, lorestore.Trailer{Key: lorestore.TrailerDecision, Value: d})
			}
			if _, err := h.store.Commit(b, m, lorestore.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			// A later, clean commit: the walk must reach the crafted one.
			h2ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
			h.ok("author.record_decision", map[string]any{"workspace": h2ws, "decision": "d-later"})
			_, err := h.svc.Canon("camelot", "")
			if tc.ok != (err == nil) || (!tc.ok && !isCode(err, CodeEvidenceCorrupt)) {
				t.Fatalf("canon: %v", err)
			}
		})
	}
}

// dli.canon serves Canon over the registry: the same export, and typed
// refusals for an undeclared scope and a revision that names nothing.
func TestCanonOp(t *testing.T) {
	h, _ := canonWorld(t)
	got := h.ok("dli.canon", map[string]any{"scope": "camelot"})
	c, err := h.svc.Canon("camelot", "")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(c)
	var wm map[string]any
	if err := json.Unmarshal(want, &wm); err != nil {
		t.Fatal(err)
	}
	delete(got, "ok")
	delete(got, "id")
	if !reflect.DeepEqual(got, wm) {
		t.Fatalf("dli.canon answered\n%v\nCanon gives\n%v", got, wm)
	}
	h.refused(CodeUnknownScope, "dli.canon", map[string]any{"scope": "logres"})
	h.refused(CodeUnknownCanonRev, "dli.canon", map[string]any{"scope": "camelot", "rev": "no-such-branch"})
	h.refused(CodeUnknownCanonRev, "dli.canon", map[string]any{"scope": "camelot", "rev": strings.Repeat("a", 300)})
}
