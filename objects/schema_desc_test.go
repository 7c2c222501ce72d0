package objects

import (
	"sort"
	"strings"
	"testing"
)

// undescribed lists the members of schema s, nested through properties,
// array items and oneOf branches, that have no description.
func undescribed(s map[string]any, path string) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		at := strings.TrimPrefix(path+"."+name, ".")
		if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, at)
		}
		out = append(out, undescribed(ps, at)...)
	}
	if items, ok := s["items"].(map[string]any); ok {
		out = append(out, undescribed(items, path+"[]")...)
	}
	bs, _ := s["oneOf"].([]any)
	for _, b := range bs {
		if bm, ok := b.(map[string]any); ok {
			out = append(out, undescribed(bm, path)...)
		}
	}
	return out
}

// TestSchemaDescribed: every member of every object type, nested ones
// included (provenance, options, atoms, terms, literals), has a
// description in the schema the add ops publish (issue 33, item 5).
func TestSchemaDescribed(t *testing.T) {
	for _, typ := range Types() {
		blank := undescribed(Schema(typ), "")
		sort.Strings(blank)
		for _, b := range blank {
			t.Errorf("%s: %s has no description", typ, b)
		}
	}
}
