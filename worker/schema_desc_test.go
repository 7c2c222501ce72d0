package worker

import (
	"sort"
	"strings"
	"testing"
)

// blankDescriptions lists, by path, every field of schema s with no
// description: each property of an object, nested through properties,
// array items, map values and the branches of oneOf and anyOf. A path is
// the field names joined by dots, an array's items marked "[]" and a
// map's values "{}" (findings[].code).
func blankDescriptions(s map[string]any, path string) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		at := name
		if path != "" {
			at = path + "." + name
		}
		if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, at)
		}
		out = append(out, blankDescriptions(ps, at)...)
	}
	if items, ok := s["items"].(map[string]any); ok {
		out = append(out, blankDescriptions(items, path+"[]")...)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		out = append(out, blankDescriptions(ap, path+"{}")...)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		bs, _ := s[k].([]any)
		for _, b := range bs {
			if bm, ok := b.(map[string]any); ok {
				out = append(out, blankDescriptions(bm, path)...)
			}
		}
	}
	return out
}

// TestBlankDescriptions: the walk finds a blank field at every depth and
// in every place a schema nests one, and passes a described one.
func TestBlankDescriptions(t *testing.T) {
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	d := func(s map[string]any, desc string) map[string]any { s["description"] = desc; return s }
	s := obj(map[string]any{
		"top":  map[string]any{"type": "string"},
		"ok":   d(map[string]any{"type": "string"}, "described"),
		"list": d(map[string]any{"type": "array", "items": obj(map[string]any{"code": map[string]any{}})}, "a list"),
		"map":  d(map[string]any{"type": "object", "additionalProperties": obj(map[string]any{"v": map[string]any{}})}, "a map"),
		"one": d(map[string]any{"oneOf": []any{
			obj(map[string]any{"a": d(map[string]any{}, "x")}),
			obj(map[string]any{"b": map[string]any{}}),
		}}, "either"),
		"space": d(map[string]any{}, " "),
	})
	got := blankDescriptions(s, "")
	sort.Strings(got)
	want := "list[].code map{}.v one.b space top"
	if strings.Join(got, " ") != want {
		t.Errorf("blank fields %v, want %s", got, want)
	}
}

// TestEveryFieldDescribed: every parameter and result field of every DLI
// op and DKE tool, nested ones included, has a description, and so has
// every field of the whole request and response lines (the frame, the
// mutation law's fields, the typed error), since the schemas are what
// docs/ops.md, contracts/ and an MCP client show (issue 33, item 5).
// The registries bind no service: only their types are read.
func TestEveryFieldDescribed(t *testing.T) {
	reg := ProjectRegistry(nil, "")
	RegisterDKE(reg, nil)
	var blank []string
	for _, op := range reg.Ops(ProfileExtended) {
		sides := map[string]map[string]any{"params": op.ParamsSchema(), "result": op.ResultSchema(),
			"request": op.RequestSchema(), "response": op.ResponseSchema()}
		for kind, s := range sides {
			for _, f := range blankDescriptions(s, "") {
				blank = append(blank, op.Name+" "+kind+" "+f)
			}
		}
	}
	sort.Strings(blank)
	for _, b := range blank {
		t.Errorf("no description: %s", b)
	}
	if len(blank) > 0 {
		t.Errorf("%d fields have no description", len(blank))
	}
}
