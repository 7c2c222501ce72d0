package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/jcs"
	"github.com/deloreis/deloreis/lorestore"
	"github.com/deloreis/deloreis/objects"
)

// A text in the canonical surface, and the same declarations written
// loosely.
const (
	canonText = "# grammar: v0 (unfrozen; AST normative)\nscope camelot\nperson galahad \"Galahad\"   proposed  s\nserves(galahad, arthur)  proposed  s\n"
	looseText = "scope camelot\nperson   galahad \"Galahad\" proposed s\nserves(galahad,arthur) proposed s\n"
	badText   = "scope camelot\nperson galahad \"Galahad\" proposed s\nserves(galahad proposed s\n"
)

// TestTextOps: fmt, parse, render and validate, table-driven.
func TestTextOps(t *testing.T) {
	h := newOpsHarness(t, false)
	runOpCases(t, h, textOpCases(t, h))
}

// textOpCases are the calls of dli.fmt, dli.parse, dli.render and
// dli.validate, over galahad written loosely, canonically and badly.
func textOpCases(t *testing.T, h *opsHarness) []opCase {
	galahad := &objects.Entity{Kind: objects.KindPerson, Ident: "galahad", Name: "Galahad", Provenance: objects.Proposed("s")}
	canon, _ := objects.Canonical(galahad)
	return []opCase{
		{"fmt loose", "dli.fmt", map[string]any{"text": looseText}, "", func(t *testing.T, m map[string]any) {
			if m["changed"] != true || !strings.Contains(m["text"].(string), "serves(galahad, arthur)") {
				t.Errorf("fmt %v", m)
			}
		}},
		{"fmt is idempotent", "dli.fmt", map[string]any{"text": mustFmt(t, h, looseText)}, "", func(t *testing.T, m map[string]any) {
			if m["changed"] != false {
				t.Errorf("formatting canonical text changed it: %v", m)
			}
		}},
		{"fmt parse error", "dli.fmt", map[string]any{"text": badText}, author.CodeParseError, func(t *testing.T, e map[string]any) {
			if e["line"] != float64(3) || e["col"] == nil || len(list(e, "errors")) == 0 || e["class"] != "schema" {
				t.Errorf("parse error %v", e)
			}
		}},
		{"fmt without text", "dli.fmt", map[string]any{}, fault.CodeMissingField, nil},
		{"parse", "dli.parse", map[string]any{"text": looseText}, "", func(t *testing.T, m map[string]any) {
			objs := list(m, "objects")
			if m["scope"] != "camelot" || m["grammar"] != "" || len(objs) != 2 {
				t.Fatalf("parse %v", m)
			}
			first := objs[0].(map[string]any)
			if first["id"] != idOf(t, galahad) || first["type"] != "entity" || first["line"] != float64(2) || first["col"] != float64(1) {
				t.Errorf("first object %v", first)
			}
			data, _ := json.Marshal(first["object"])
			if c, _ := jcs.Transform(data); string(c) != string(canon) {
				t.Errorf("object %s, want %s", c, canon)
			}
		}},
		{"parse error", "dli.parse", map[string]any{"text": badText}, author.CodeParseError, nil},
		{"render", "dli.render", map[string]any{"scope": "camelot", "objects": []json.RawMessage{canon}}, "", func(t *testing.T, m map[string]any) {
			want := "# grammar: v0 (unfrozen; AST normative)\nscope camelot\nperson galahad \"Galahad\""
			if !strings.HasPrefix(m["text"].(string), want) {
				t.Errorf("render %q", m["text"])
			}
		}},
		{"render bad object", "dli.render", map[string]any{"objects": []any{json.RawMessage(canon), map[string]any{"type": "entity", "id": "x"}}}, author.CodeInvalidObject,
			func(t *testing.T, e map[string]any) {
				if f, _ := e["field"].(string); !strings.HasPrefix(f, "objects[1]") {
					t.Errorf("field %v", e)
				}
			}},
		{"render bad scope", "dli.render", map[string]any{"scope": "../etc", "objects": []any{}}, fault.CodeBadParams, nil},
		{"validate", "dli.validate", map[string]any{"object": json.RawMessage(canon)}, "", func(t *testing.T, m map[string]any) {
			if m["valid"] != true || m["object_id"] != idOf(t, galahad) || m["canonical"] != string(canon) || len(list(m, "errors")) != 0 {
				t.Errorf("validate %v", m)
			}
		}},
		{"validate field errors", "dli.validate", map[string]any{"object": map[string]any{"type": "entity", "id": "Not An Id", "kind": "dragon", "name": "x",
			"provenance": map[string]any{"kind": "proposed", "origin": "s"}}}, "", func(t *testing.T, m map[string]any) {
			errs := list(m, "errors")
			if m["valid"] != false || m["object_id"] != nil || len(errs) != 2 {
				t.Fatalf("validate %v", m)
			}
			fields := []string{errs[0].(map[string]any)["field"].(string), errs[1].(map[string]any)["field"].(string)}
			if strings.Join(fields, ",") != "id,kind" {
				t.Errorf("fields %v", fields)
			}
		}},
		{"validate without object", "dli.validate", map[string]any{}, fault.CodeMissingField, nil},
	}
}

func mustFmt(t *testing.T, h *opsHarness, text string) string {
	t.Helper()
	return h.in(t).ok("dli.fmt", map[string]any{"text": text})["text"].(string)
}

// TestRenderRoundTrip: rendering what parse gives is what fmt gives.
func TestRenderRoundTrip(t *testing.T) {
	h := newOpsHarness(t, false)
	text := "scope camelot\n" +
		"place logres \"Logres\"  proposed  s\n" +
		"era the-salt-years \"The Salt Years\"  proposed  s\n" +
		"event the-drowning during the-salt-years  proposed  s\n" +
		"logres.climate = \"wet and grey\"  proposed  s\n" +
		"rule r: ruled(X) :- person(X), not exiled(X)  proposed  s\n"
	p := h.ok("dli.parse", map[string]any{"text": text})
	var objs []any
	for _, o := range list(p, "objects") {
		objs = append(objs, o.(map[string]any)["object"])
	}
	r := h.ok("dli.render", map[string]any{"scope": "camelot", "objects": objs})
	if want := mustFmt(t, h, "# grammar: v0\n"+text); r["text"] != want {
		t.Errorf("render\n%s\nfmt\n%s", r["text"], want)
	}
}

// TestCheck: findings placed at line and column, over the document's
// head in the store or standalone; scope mismatches and unknown scopes
// refused.
func TestCheck(t *testing.T) {
	h := newOpsHarness(t, false)
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   string
		clean  bool
		want   []string // "line:col code" of each finding, in order
		base   bool     // staged over the head
	}{
		{"over the store", map[string]any{"text": looseText}, "", true, nil, true},
		{"standalone", map[string]any{"text": looseText, "standalone": true}, "", false, []string{"3:16 entity.unknown"}, false},
		{"scope param", map[string]any{"text": "person galahad \"G\" proposed s\nserves(galahad, mordred) proposed s\n", "scope": "camelot"}, "", false,
			[]string{"2:17 entity.unknown"}, true},
		{"no scope at all", map[string]any{"text": "person galahad \"G\" proposed s\n"}, "", true, nil, false},
		{"parse errors and findings", map[string]any{"text": badText + "serves(galahad, nobody) proposed s\n"}, "", false, []string{"4:17 entity.unknown"}, true},
		{"scope mismatch", map[string]any{"text": looseText, "scope": "logres"}, author.CodeScopeMismatch, false, nil, false},
		{"undeclared scope", map[string]any{"text": "scope avalon\nperson x \"X\" proposed s\n"}, author.CodeUnknownScope, false, nil, false},
		{"undeclared scope standalone", map[string]any{"text": "scope avalon\nperson x \"X\" proposed s\n", "standalone": true}, "", true, nil, false},
		{"scope not an id", map[string]any{"text": "", "scope": "a/b"}, fault.CodeBadParams, false, nil, false},
		{"parse errors: a control character", map[string]any{"text": "scope camelot\nperson x \"X\u0007\" proposed s\n"}, "", false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.in(t)
			if tc.code != "" {
				h.refused(tc.code, "dli.check", tc.params)
				return
			}
			m := h.ok("dli.check", tc.params)
			var got []string
			for _, f := range list(m, "findings") {
				f := f.(map[string]any)
				got = append(got, jsonInt(f["line"])+":"+jsonInt(f["col"])+" "+f["code"].(string))
			}
			if strings.Join(got, ";") != strings.Join(tc.want, ";") || m["clean"] != (tc.clean) {
				t.Errorf("findings %v clean %v, want %v clean %v", got, m["clean"], tc.want, tc.clean)
			}
			if (m["base"] == h.head()) != tc.base {
				t.Errorf("base %v, head %s", m["base"], h.head())
			}
			if strings.HasPrefix(tc.name, "parse errors") && len(list(m, "parse_errors")) != 1 {
				t.Errorf("parse errors %v", m["parse_errors"])
			}
		})
	}
}

func jsonInt(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImport: a dry run commits nothing; a materialize writes one commit;
// an exact retry writes nothing new (content-addressed); a blocked text,
// a text that does not parse, and a pinned project store nothing.
func TestImport(t *testing.T) {
	h := newOpsHarness(t, false)
	text := "scope camelot\nperson galahad \"Galahad\" proposed s\nserves(galahad, arthur) proposed s\n"
	head0 := h.head()
	dry := h.ok("dli.import", map[string]any{"text": text, "scope": "camelot"})
	if dry["committed"] != false || dry["commit"] != "" || dry["base"] != head0 || dry["blocked"] != false || dry["declarations"] != float64(2) || h.head() != head0 {
		t.Fatalf("dry run %v", dry)
	}
	if nc := list(dry["consequences"].(map[string]any), "newly_certain"); len(nc) != 0 {
		t.Logf("newly certain %v", nc) // proposed claims are possible, not certain
	}
	first := h.ok("dli.import", map[string]any{"text": text, "scope": "camelot", "materialize": true})
	head1 := h.head()
	if first["committed"] != true || first["commit"] != head1 || head1 == head0 {
		t.Fatalf("materialize %v (head %s)", first, head1)
	}
	es, err := h.store.Log(lorestore.LogOptions{From: "main", Limit: 1})
	if err != nil || es[0].Message.Get(lorestore.TrailerOp) != "import" || es[0].Message.Get(lorestore.TrailerScope) != "camelot" {
		t.Fatalf("commit %v %v", es, err)
	}
	again := h.ok("dli.import", map[string]any{"text": text, "scope": "camelot", "materialize": true})
	if again["committed"] != false || again["commit"] != head1 || h.head() != head1 {
		t.Fatalf("retry %v (head %s)", again, h.head())
	}
	// The same declarations formatted otherwise are the same objects.
	h.ok("dli.import", map[string]any{"text": mustFmt(t, h, text), "scope": "camelot", "materialize": true})
	if h.head() != head1 {
		t.Fatal("a reformatted retry committed")
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   string
	}{
		{"blocked", map[string]any{"text": "serves(galahad, mordred) proposed s\n", "scope": "camelot", "materialize": true}, author.CodeMaterializeBlocked},
		{"parse error", map[string]any{"text": badText, "scope": "camelot", "materialize": true}, author.CodeParseError},
		{"scope mismatch", map[string]any{"text": text, "scope": "logres", "materialize": true}, author.CodeScopeMismatch},
		{"undeclared scope", map[string]any{"text": "person x \"X\" proposed s\n", "scope": "avalon", "materialize": true}, author.CodeUnknownScope},
		{"scope is data", map[string]any{"text": "", "scope": "../../etc", "materialize": true}, fault.CodeBadParams},
		{"no scope", map[string]any{"text": text, "materialize": true}, fault.CodeMissingField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := h.in(t).refused(tc.code, "dli.import", tc.params)
			if tc.code == author.CodeMaterializeBlocked && len(list(e, "findings")) == 0 {
				t.Errorf("blocked without findings: %v", e)
			}
			if h.head() != head1 {
				t.Fatal("a refused import committed")
			}
		})
	}
	// A blocked dry run answers with its findings, blocked.
	b := h.ok("dli.import", map[string]any{"text": "serves(galahad, mordred) proposed s\n", "scope": "camelot"})
	if b["blocked"] != true || len(list(b, "findings")) != 1 {
		t.Fatalf("blocked dry run %v", b)
	}
	// logres, declared but empty, takes a first import.
	l := h.ok("dli.import", map[string]any{"text": "place logres \"Logres\" proposed s\n", "scope": "logres", "materialize": true})
	if l["committed"] != true || l["base"] != head1 {
		t.Fatalf("logres import %v", l)
	}
}

// TestImportPinned: a pinned project stages but does not commit.
func TestImportPinned(t *testing.T) {
	h := newOpsHarness(t, true)
	head := h.head()
	h.ok("dli.import", map[string]any{"text": "person x \"X\" proposed s\n", "scope": "camelot"})
	h.refused(author.CodeProjectPinned, "dli.import", map[string]any{"text": "person x \"X\" proposed s\n", "scope": "camelot", "materialize": true})
	if h.head() != head {
		t.Fatal("a pinned import committed")
	}
}

// TestConcurrentChecks: checks and imports from several goroutines share
// the kept stager safely (run with -race).
func TestConcurrentChecks(t *testing.T) {
	h := newOpsHarness(t, false)
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 5; i++ {
				text := fmt.Sprintf("person p%d-%d \"P\" proposed s\nserves(p%d-%d, arthur) proposed s\n", g, i, g, i)
				params := map[string]any{"text": text, "scope": "camelot"}
				op := "dli.check"
				if i == 2 {
					op, params["materialize"] = "dli.import", true
				}
				req, _ := json.Marshal(map[string]any{"dli": "2.0.0", "id": "c", "op": op, "params": params})
				r := h.reg.Dispatch(context.Background(), req)
				if r.Err != nil && r.Err.Code != author.CodeBranchMoved {
					done <- fmt.Sprintf("%s: %v", op, r.Err)
					return
				}
			}
			done <- ""
		}(g)
	}
	for g := 0; g < 8; g++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
