package casebook

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const projectTOML = "[[document]]\nscope = \"casebook\"\n"

func TestParse(t *testing.T) {
	cases := []struct {
		name, script string
		err          string // "" when the script parses
		calls        int
	}{
		{"every kind", "# a comment\n\n" + `{"title":"T"}
{"act":"A"}
{"say":"S"}
{"tool":"author_open","arguments":{"scope":"casebook"},"say":"why","let":{"ws":"workspace"},"show":["scope"]}
{"tool":"author_check","arguments":{"workspace":"$ws"},"expect":"error:unknown-doc"}`, "", 2},
		{"nothing", "# only a comment\n", "no lines", 0},
		{"unknown field", `{"tool":"author_open","arguments":{},"expct":"ok"}`, "line 1", 0},
		{"two kinds", `{"title":"T","act":"A"}`, "exactly one", 0},
		{"no kind", `{"expect":"ok"}`, "exactly one", 0},
		{"call fields on narration", `{"say":"S","expect":"ok"}`, "belong to a tool call", 0},
		{"arguments not an object", "\n" + `{"tool":"author_open","arguments":["x"]}`, "line 2", 0},
		{"no arguments", `{"tool":"author_open"}`, "must be a JSON object", 0},
		{"bad expect", `{"tool":"author_open","arguments":{},"expect":"fails"}`, "want ok or error:<code>", 0},
		{"empty error code", `{"tool":"author_open","arguments":{},"expect":"error:"}`, "want ok or error:<code>", 0},
		{"bad let path", `{"tool":"author_open","arguments":{},"let":{"x":"a[b"}}`, "let x", 0},
		{"two values", `{"say":"S"} {"say":"T"}`, "more than one", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := Parse(strings.NewReader(tc.script))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for _, l := range lines {
				if l.IsCall() {
					calls++
					if l.Expect == "" {
						t.Errorf("line %d: expect not defaulted", l.N)
					}
				}
			}
			if calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	var v any
	doc := `{"root_hash":"abc","n":3,"committed":[
		{"id":"i1","object":{"key":"weapon","value":"the-knife"}},
		{"id":"i2","object":{"key":"weapon","value":"the-revolver"}}],
		"staged":[{"decl":"d1","rendered":["x = y"]}]}`
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, want, err string }{
		{"root_hash", "abc", ""},
		{"committed[1].id", "i2", ""},
		{"committed[object.value=the-revolver].id", "i2", ""},
		{"committed[object.key=weapon].object.value", "the-knife", ""}, // the first match
		{"staged[rendered[0]=x = y].decl", "d1", ""},
		{"committed[2].id", "", "index 2 of 2"},
		{"committed[object.value=the-rope].id", "", "no element"},
		{"nothing", "", "no field"},
		{"n", "", "not a string"},
		{"root_hash[0]", "", "not an array"},
		{"root_hash.x", "", "not in an object"},
		{"committed[-1]", "", "want [N] or [key=value]"},
		{"committed..id", "", "empty segment"},
	}
	for _, tc := range cases {
		got, err := lookup(v, tc.path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want an error with %q", tc.path, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"claim": "c0ffee", "odd": `a "quoted" \ value`}
	cases := []struct{ in, want, err string }{
		{`{"workspace": "ws-1", "claim_id": "$claim"}`, `{"workspace":"ws-1","claim_id":"c0ffee"}`, ""},
		{`{"b":["$claim",{"c":"$odd"}],"a":1}`, `{"b":["c0ffee",{"c":"a \"quoted\" \\ value"}],"a":1}`, ""},
		// A "$" inside a longer string, or after an escaped quote, is text.
		{`{"say":"it costs $5","q":"\"$claim\""}`, `{"say":"it costs $5","q":"\"$claim\""}`, ""},
		{`{"k":"$nobody"}`, "", "$nobody is not bound"},
		{`{"k":`, "", "unexpected end"},
	}
	for _, tc := range cases {
		got, err := substitute(json.RawMessage(tc.in), vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %s, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestWriteField: how each kind of result field reads in the story.
func TestWriteField(t *testing.T) {
	id := strings.Repeat("ab", 32)
	cases := []struct{ key, value, want string }{
		{"root_hash", `"` + id[:40] + `"`, "- root_hash: `abababababab`\n"},
		{"blocked", `true`, "- blocked: `true`\n"},
		{"findings", `[]`, "- findings: none\n"},
		{"findings", `[{"code":"entity.unknown","severity":"error","message":"No entity ` + id + `."}]`,
			"- findings:\n  - `entity.unknown` (error): No entity abababababab.\n"},
		{"rendered", `["a = b"]`, "- rendered: `a = b`\n"},
		{"rendered", `["x ` + "`" + `y", "z"]`, "- rendered:\n  - ``x `y``\n  - `z`\n"},
		{"committed", `[{"type":"fact"},{"type":"entity"},{"type":"fact"}]`, "- committed: 1 entity, 2 fact\n"},
		{"committed", `["` + id + `"]`, "- committed: `abababababab`\n"},
		{"answers", `[{"args":["a","b"],"grade":"possible"}]`, "- answers:\n  - `rel(a, b)`: possible\n"},
		{"staged", `[{"decl":"` + id + `","type":"fact","rendered":["a.b = c"]}]`, "- staged:\n  - `abababababab`: `a.b = c`\n"},
		{"standing", `[{"decl":"` + id + `","type":"standing","rendered":["standing x ratified by d"]}]`, "- standing:\n  - `standing x ratified by d`\n"},
		{"conflicts", `[{"kind":"exclusivity","message":"Two."}]`, "- conflicts:\n  - `exclusivity`: Two.\n"},
		{"branches", `[{"name":"main","head":"` + id[:40] + `"}]`, "- branches:\n  - `main` at `abababababab`\n"},
		{"questions", `[{"id":"q","answer":"o2","options":[{"id":"o1"},{"id":"o2"}]}]`, "- questions:\n  - `q` (answered `o2`): options `o1`, `o2`\n"},
		{"consequences", `{"grade_changed":[{"pred":"p","args":["a"],"before":"certain","after":"dead"}],"conflicts":[{"code":"c.d","message":"M."}]}`,
			"- consequences:\n  - `p(a)`: certain → dead\n  - conflict `c.d`: M.\n"},
		{"error", `{"code":"materialize-blocked","class":"refused","message":"No.","findings":[]}`,
			"- `materialize-blocked` (refused): No.\n- its findings: none\n"},
	}
	st := &Step{Sent: json.RawMessage(`{"goal":{"pred":"rel","args":[]}}`)}
	for _, tc := range cases {
		var v any
		if err := json.Unmarshal([]byte(tc.value), &v); err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		var b strings.Builder
		writeField(&b, st, tc.key, v)
		if b.String() != tc.want {
			t.Errorf("%s %s:\n%s\nwant\n%s", tc.key, tc.value, b.String(), tc.want)
		}
	}
}

// TestReplay replays a short script through the real registry over MCP:
// outcomes are recorded, a let feeds a later call, an unexpected outcome
// is a mismatch, and a second replay tells the same story byte for byte.
func TestReplay(t *testing.T) {
	script := `{"title":"A short case"}
{"tool":"author_open","arguments":{"scope":"casebook"}}
{"tool":"author_add_entity","arguments":{"workspace":"ws-1","kind":"person","id":"holmes","name":"Sherlock Holmes","provenance":{"kind":"proposed","origin":"watson"}}}
{"tool":"author_materialize","arguments":{"workspace":"ws-1"},"let":{"holmes":"committed[type=entity].id"}}
{"tool":"author_history","arguments":{"workspace":"ws-1","claim":"$holmes"},"show":["type","grade"]}
{"tool":"author_open","arguments":{"scope":"elsewhere"},"expect":"error:unknown-scope"}
{"tool":"author_discard","arguments":{"workspace":"ws-1","decl":"0000000000000000000000000000000000000000000000000000000000000000"}}
`
	run := func() (*Story, string) {
		story, err := Replay(context.Background(), []byte(projectTOML), []byte(script))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := story.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		return story, b.String()
	}
	story, md := run()
	var outcomes []string
	for _, st := range story.Steps {
		if st.IsCall() {
			outcomes = append(outcomes, st.Outcome)
		}
	}
	want := []string{"ok", "ok", "ok", "ok", "error:unknown-scope", "error:unknown-decl"}
	if strings.Join(outcomes, " ") != strings.Join(want, " ") {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
	if story.Mismatches != 1 || !story.Steps[6].Mismatch {
		t.Errorf("mismatches %d; the discard's is %v", story.Mismatches, story.Steps[6].Mismatch)
	}
	for _, w := range []string{
		"# A short case\n",
		"- rendered: `person holmes \"Sherlock Holmes\"",
		"- type: `entity`\n- grade: `possible`\n",
		"- refused: `unknown-scope`\n",
		"- refused: `unknown-decl` — **the script expected ok**\n",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("the story lacks %q:\n%s", w, md)
		}
	}
	if _, again := run(); again != md {
		t.Errorf("a second replay tells another story:\n%s\n---\n%s", again, md)
	}
}

func TestReplayRefusesABrokenRun(t *testing.T) {
	cases := []struct{ name, project, script, err string }{
		{"bad project", "[[document]]\nscope = \"Not An Id\"\n", `{"say":"S"}`, "not an id"},
		{"bad script", projectTOML, `{"say":1}`, "line 1"},
		{"let finds nothing", projectTOML, `{"tool":"author_open","arguments":{"scope":"casebook"},"let":{"x":"nothing"}}`, "let x"},
		{"unknown tool", projectTOML, `{"tool":"author_teleport","arguments":{}}`, "author_teleport"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(context.Background(), []byte(tc.project), []byte(tc.script))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want one with %q", err, tc.err)
			}
		})
	}
}
