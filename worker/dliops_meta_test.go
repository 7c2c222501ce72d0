package worker

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/world"
)

// TestMetaOps: the self-describing ops, table-driven: each answers what
// the registry, the catalogue and the code tables hold when it is called.
func TestMetaOps(t *testing.T) {
	h := newOpsHarness(t, false)
	// One more op registered after the dli ops: the self-description sees it.
	Register(h.reg, Spec{Name: "zz.late", Summary: "Registered last.", Mutating: true, Fiction: true},
		func(context.Context, *Call, *author.Empty) (author.Empty, error) { return author.Empty{}, nil })
	h.reg.Kill(Killed{Name: "zz.old", Replacement: "zz.late", Note: "renamed"})
	runOpCases(t, h, slices.Concat(metaDescribeCases, metaCatalogueCases(h)))
}

// metaDescribeCases are the calls of dli.hello, dli.version, dli.ops and
// dli.schema, over the registry with zz.late registered and zz.old killed.
var metaDescribeCases = []opCase{
	{"hello", "dli.hello", nil, "", func(t *testing.T, m map[string]any) {
		if m["contract"] != "2.0.0" || m["server"] != "deloreis" || m["version"] != "9.9.9-test" ||
			m["ops"] != float64(25) || m["fiction_ops"] != float64(2) {
			t.Errorf("hello %v", m)
		}
	}},
	{"version", "dli.version", map[string]any{}, "", func(t *testing.T, m map[string]any) {
		if m["contract"] != "2.0.0" || m["version"] != "9.9.9-test" || m["store_format"] == nil {
			t.Errorf("version %v", m)
		}
	}},
	{"hello takes no params", "dli.hello", map[string]any{"client": "x"}, fault.CodeUnknownField, nil},
	{"ops extended", "dli.ops", nil, "", func(t *testing.T, m map[string]any) {
		ops := list(m, "ops")
		if m["profile"] != "extended" || len(ops) != 25 {
			t.Fatalf("ops %v", m)
		}
		last := ops[24].(map[string]any)
		if last["name"] != "zz.late" || last["mutating"] != true || len(list(last, "profiles")) != 2 {
			t.Errorf("late op %v", last)
		}
	}},
	{"ops fiction", "dli.ops", map[string]any{"profile": "fiction"}, "", func(t *testing.T, m map[string]any) {
		ops := list(m, "ops")
		if len(ops) != 2 || ops[0].(map[string]any)["name"] != "dli.hello" {
			t.Errorf("fiction ops %v", ops)
		}
	}},
	{"ops bad profile", "dli.ops", map[string]any{"profile": "everything"}, fault.CodeBadParams, nil},
	{"schema", "dli.schema", map[string]any{"op": "dli.export"}, "", func(t *testing.T, m map[string]any) {
		params := m["params"].(map[string]any)
		req, _ := json.Marshal(params["required"])
		if string(req) != `["scope"]` || params["additionalProperties"] != false {
			t.Errorf("export params schema %v", params)
		}
		rq := m["request"].(map[string]any)["properties"].(map[string]any)
		if _, fenced := rq["expected_digest"]; fenced {
			t.Error("a non-mutating op's request schema takes expected_digest")
		}
		res := m["result"].(map[string]any)["properties"].(map[string]any)
		if res["objects"].(map[string]any)["type"] != "array" {
			t.Errorf("export result schema %v", res)
		}
	}},
	{"schema of a mutating op", "dli.schema", map[string]any{"op": "zz.late"}, "", func(t *testing.T, m map[string]any) {
		rq := m["request"].(map[string]any)["properties"].(map[string]any)
		if _, fenced := rq["idempotency_key"]; !fenced || m["mutating"] != true {
			t.Errorf("mutating request schema %v", rq)
		}
	}},
	{"schema unknown op", "dli.schema", map[string]any{"op": "dli.nothing"}, author.CodeNoSuchOp, nil},
	{"schema killed op", "dli.schema", map[string]any{"op": "zz.old"}, author.CodeNoSuchOp, func(t *testing.T, m map[string]any) {
		if m["replacement"] != "zz.late" {
			t.Errorf("killed op error %v", m)
		}
	}},
	{"schema without op", "dli.schema", map[string]any{}, fault.CodeMissingField, nil},
}

// metaCatalogueCases are the calls of dli.errors, dli.findings and
// dli.killed, which list the code tables, the catalogue and h's kills.
func metaCatalogueCases(h *opsHarness) []opCase {
	return []opCase{
		{"errors", "dli.errors", nil, "", func(t *testing.T, m map[string]any) {
			codes := list(m, "codes")
			got := map[string]string{}
			var names []string
			for _, c := range codes {
				row := c.(map[string]any)
				got[row["code"].(string)] = row["class"].(string)
				names = append(names, row["code"].(string))
			}
			if !sort.StringsAreSorted(names) {
				t.Errorf("codes not sorted: %v", names)
			}
			for code, class := range map[string]string{"bad-json": "schema", "killed-op": "refused", "stale-fence": "refused",
				"idempotency-conflict": "conflict", "parse-error": "schema", "unknown-revision": "not-found", "no-such-op": "not-found"} {
				if got[code] != class {
					t.Errorf("code %s: class %q, want %s", code, got[code], class)
				}
			}
			if len(codes) != len(DLIErrorCodes()) || len(list(m, "classes")) != 5 {
				t.Errorf("%d codes, %d classes", len(codes), len(list(m, "classes")))
			}
		}},
		{"findings", "dli.findings", nil, "", func(t *testing.T, m map[string]any) {
			fs := list(m, "findings")
			if len(fs) != len(world.Catalogue) {
				t.Fatalf("%d findings, want %d", len(fs), len(world.Catalogue))
			}
			for _, f := range fs {
				row := f.(map[string]any)
				info, ok := world.Info(row["code"].(string))
				if !ok || string(info.Severity) != row["severity"] || string(info.Grade) != row["grade"] || info.Meaning != row["meaning"] {
					t.Errorf("finding row %v", row)
				}
			}
		}},
		{"killed", "dli.killed", nil, "", func(t *testing.T, m map[string]any) {
			ops := list(m, "ops")
			last := ops[len(ops)-1].(map[string]any) // zz.old sorts last
			if len(ops) != len(h.reg.KilledForms()) || last["name"] != "zz.old" || last["replacement"] != "zz.late" {
				t.Errorf("killed ops %v", ops)
			}
			if vs := list(m, "versions"); len(vs) != 1 || vs[0].(map[string]any)["replacement"] != "2.0.0" {
				t.Errorf("killed versions %v", vs)
			}
		}},
	}
}

// TestErrorCodesClassed: every code a dli op names in its spec has a
// class in the reference, and no code has two classes across tables.
func TestErrorCodesClassed(t *testing.T) {
	h := newOpsHarness(t, false)
	all := DLIErrorCodes()
	for _, op := range h.reg.Ops(ProfileExtended) {
		for _, c := range op.Errors {
			if _, ok := all[c]; !ok {
				t.Errorf("%s names code %s, which has no class", op.Name, c)
			}
		}
	}
	for c := range author.ErrorCodes {
		if _, dup := ProtocolCodes[c]; dup {
			t.Errorf("code %s is both the protocol's and the use cases'", c)
		}
	}
}
