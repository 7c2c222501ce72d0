package author

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/objects"
)

// The spec lines an outside conformance pass found partial (issue 33,
// item 6), each held over the use case.

// TestEventEraMustNameAnEra holds DLI §3.4: an event's era names an era
// entity in scope. One that names a person, a place or an event is an
// error finding that bars materialize, whichever was staged first.
func TestEventEraMustNameAnEra(t *testing.T) {
	cases := []struct {
		name    string
		first   []map[string]any // staged before the event, as add_entity params
		after   []map[string]any // staged after it
		era     string
		want    []string // the event's findings
		blocked bool     // materialize is refused after all is staged
	}{
		{"an era", []map[string]any{entity("era", "grail-years")}, nil, "grail-years", nil, false},
		{"a person", []map[string]any{entity("person", "galahad")}, nil, "galahad", []string{"chronology.not-an-era"}, true},
		{"a place", []map[string]any{entity("place", "logres")}, nil, "logres", []string{"chronology.not-an-era"}, true},
		{"a person staged later", nil, []map[string]any{entity("person", "galahad")}, "galahad", []string{"entity.unknown"}, true},
		{"an era staged later", nil, []map[string]any{entity("era", "grail-years")}, "grail-years", []string{"entity.unknown"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "camelot")
			ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
			for _, p := range c.first {
				p["workspace"] = ws
				h.ok("author.add_entity", p)
			}
			r := h.ok("author.add_event", map[string]any{"workspace": ws, "id": "the-quest", "era": c.era, "provenance": prop()})
			if got := findingCodes(r); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("add_event findings %v, want %v", got, c.want)
			}
			for _, p := range c.after {
				p["workspace"] = ws
				h.ok("author.add_entity", p)
			}
			st := h.ok("author.status", map[string]any{"workspace": ws})
			codes := findingCodes(st)
			if c.blocked {
				if !reflect.DeepEqual(codes, []string{"chronology.not-an-era"}) {
					t.Fatalf("status findings %v, want chronology.not-an-era alone", codes)
				}
				f := st["findings"].([]any)[0].(map[string]any)
				if d := f["data"].(map[string]any); d["era"] != c.era || d["kind"] == "" || f["severity"] != "error" {
					t.Fatalf("finding %v", f)
				}
				h.refused(CodeMaterializeBlocked, "author.materialize", map[string]any{"workspace": ws})
				return
			}
			if len(codes) != 0 {
				t.Fatalf("status findings %v", codes)
			}
			h.ok("author.materialize", map[string]any{"workspace": ws})
		})
	}
}

// entity is author.add_entity's params for a proposed entity.
func entity(kind, id string) map[string]any {
	return map[string]any{"kind": kind, "id": id, "name": id, "provenance": prop()}
}

// TestAddEntityRunsTheNamingOracle holds DLI §3.1: when the project
// configures a dialect, a staged entity's name goes through the naming
// oracle, and one that passes no dialect is unvetted, as author.add_name
// reports it.
func TestAddEntityRunsTheNamingOracle(t *testing.T) {
	cases := []struct {
		name     string
		dialects []*objects.Dialect
		entity   string
		want     []string
	}{
		{"no dialect configured", nil, "Kraxx", nil},
		{"a name the oracle passes", []*objects.Dialect{riverSpeech()}, "Mireth", nil},
		{"a name it rejects", []*objects.Dialect{riverSpeech()}, "Kraxx", []string{"name.unvetted"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newExpertHarness(t, c.dialects, "camelot")
			ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
			r := h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "e1", "name": c.entity, "provenance": prop()})
			if got := findingCodes(r); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("findings %v, want %v", got, c.want)
			}
			if c.want == nil {
				return
			}
			f := r["findings"].([]any)[0].(map[string]any)
			want := map[string]any{"kind": "run-check", "op": "dli.name.check", "params": map[string]any{"name": c.entity, "dialect": "river-speech"}}
			if f["severity"] != "warn" || !reflect.DeepEqual(f["repair"], want) || f["data"].(map[string]any)["kind"] != "entity" {
				t.Fatalf("finding %v", f)
			}
			// The status shows it while it is staged; discarding the
			// entity takes it away.
			if got := findingCodes(h.ok("author.status", map[string]any{"workspace": ws})); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("status findings %v", got)
			}
			h.ok("author.discard", map[string]any{"workspace": ws, "decl": f["citations"].([]any)[0]})
			if got := findingCodes(h.ok("author.status", map[string]any{"workspace": ws})); len(got) != 0 {
				t.Fatalf("status findings after discard %v", got)
			}
		})
	}
}

// TestPinnedProjectCommitsNothing holds the ruling on a pinned project
// (DL-0443): every workspace opens at the pin, so an author op that would
// commit to the serving branch is refused as pinned-project and no branch
// moves, while staging over the pin still works.
func TestPinnedProjectCommitsNothing(t *testing.T) {
	h := newHarness(t, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "first", "name": "First", "provenance": prop()})
	pin := h.ok("author.materialize", map[string]any{"workspace": ws})["root_hash"].(string)
	h.ok("author.branch", map[string]any{"workspace": ws, "action": "create", "name": "side"})
	svc, err := New(Config{Store: h.store, Documents: []string{"camelot"}, Pin: pin[:12]})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	claim := strings.Repeat("ab", 32)
	cases := []struct {
		op     string
		params map[string]any
	}{
		{"author.materialize", map[string]any{}},
		{"author.record_decision", map[string]any{"decision": "canon-1"}},
		{"author.record_decisions", map[string]any{"records": []any{map[string]any{"decision": "canon-1"}}}},
		{"author.set_standing", map[string]any{"claim_id": claim, "decision": "canon-1"}},
		{"author.defeat", map[string]any{"claim_id": claim, "decision": "canon-2", "defeated_decision": "canon-1"}},
		{"author.merge", map[string]any{"source": "side"}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			h := &harness{t: t, store: h.store, svc: h.svc}
			pw := h.ok("author.open", map[string]any{"scope": "camelot"})
			if pw["root_hash"] != pin {
				t.Fatalf("opened on %v, not the pin", pw["root_hash"])
			}
			c.params["workspace"] = pw["workspace"]
			st := h.ok("author.add_entity", map[string]any{"workspace": pw["workspace"], "kind": "person", "id": "second", "name": "Second", "provenance": prop()})
			before := h.mainHead()
			e := h.refused(CodePinnedProject, c.op, c.params)
			if e["pin"] != pin || !strings.Contains(e["message"].(string), "pinned") {
				t.Fatalf("refusal %v", e)
			}
			if h.mainHead() != before {
				t.Fatal("main moved")
			}
			if got := h.ok("author.status", map[string]any{"workspace": pw["workspace"]}); got["workspace_digest"] != st["workspace_digest"] {
				t.Fatal("the refusal changed the workspace")
			}
		})
	}
}

// TestRecordDecisionFieldNames holds that an invalid decision id is
// reported under the param that holds it, not the object field it becomes.
func TestRecordDecisionFieldNames(t *testing.T) {
	cases := []struct {
		op     string
		params map[string]any
		field  string
	}{
		{"author.record_decision", map[string]any{"decision": "Not An Id"}, "decision"},
		{"author.record_decisions", map[string]any{"records": []any{map[string]any{"decision": "canon-1"}, map[string]any{"decision": "Not An Id"}}}, "records[1].decision"},
		{"author.record_decision", map[string]any{"decision": "canon-1", "provenance": map[string]any{"kind": "proposed"}}, "provenance.origin"},
		{"author.record_decisions", map[string]any{"records": []any{map[string]any{"decision": "canon-1", "provenance": map[string]any{"kind": "proposed"}}}}, "records[0].provenance.origin"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			h := newHarness(t, "camelot")
			c.params["workspace"] = h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"]
			m := h.call(c.op, c.params)
			e, _ := m["error"].(map[string]any)
			if m["ok"] != false || e["field"] != c.field {
				t.Fatalf("error %v, want field %q", e, c.field)
			}
			if ps, _ := e["problems"].([]any); len(ps) == 0 || ps[0].(map[string]any)["field"] != c.field {
				t.Fatalf("problems %v, want field %q", e["problems"], c.field)
			}
			if msg := e["message"].(string); !strings.HasPrefix(msg, "params: "+c.field+" ") {
				t.Fatalf("message %q does not name %s", msg, c.field)
			}
		})
	}
}
