package objects

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"testing"
)

// TestSchemaMatchesDecoder checks Schema against Decode for every type:
// the golden instance is schema-valid and decodes; dropping each required
// member makes it schema-invalid and the decoder refuses it with
// field.required naming that member; dropping an optional one keeps both
// accepting; an unknown member is refused by both.
func TestSchemaMatchesDecoder(t *testing.T) {
	for _, typ := range Types() {
		t.Run(string(typ), func(t *testing.T) {
			s := Schema(typ)
			if s == nil {
				t.Fatal("no schema")
			}
			data, err := os.ReadFile(goldenPath(typ))
			if err != nil {
				t.Fatal(err)
			}
			var golden map[string]any
			if err := json.Unmarshal(data, &golden); err != nil {
				t.Fatal(err)
			}
			if err := validate(s, golden); err != nil {
				t.Fatalf("golden is not schema-valid: %v", err)
			}
			if _, err := Decode(data); err != nil {
				t.Fatalf("golden does not decode: %v", err)
			}
			fields := Fields(typ)
			props := s["properties"].(map[string]any)
			if len(props) != len(fields)+1 {
				t.Errorf("schema has %d properties, want %d", len(props), len(fields)+1)
			}
			for _, f := range fields {
				if f.Name == "type" || f.Schema == nil {
					t.Errorf("field %q: bad entry %+v", f.Name, f)
				}
				if _, ok := golden[f.Name]; !ok {
					if f.Required {
						t.Errorf("golden lacks required %q", f.Name)
					}
					continue
				}
				without := map[string]any{}
				for k, v := range golden {
					if k != f.Name {
						without[k] = v
					}
				}
				b, _ := json.Marshal(without)
				_, decErr := Decode(b)
				schemaErr := validate(s, without)
				if f.Required {
					if schemaErr == nil {
						t.Errorf("without required %q: schema accepts", f.Name)
					}
					if fes := FieldErrors(decErr); len(fes) == 0 || fes[0].Code != CodeRequired || fes[0].Field != f.Name {
						t.Errorf("without required %q: decoder says %v", f.Name, decErr)
					}
				} else if schemaErr != nil || decErr != nil {
					t.Errorf("without optional %q: schema %v, decoder %v", f.Name, schemaErr, decErr)
				}
			}
			extra := map[string]any{"not_a_field": "x"}
			for k, v := range golden {
				extra[k] = v
			}
			b, _ := json.Marshal(extra)
			if _, err := Decode(b); err == nil || validate(s, extra) == nil {
				t.Errorf("an unknown member: decoder %v, schema accepts %v", err, validate(s, extra) == nil)
			}
		})
	}
	if Schema("no-such-type") != nil || Fields("no-such-type") != nil {
		t.Error("an unknown type has a schema")
	}
}

// TestSchemaEnums checks that the enums the schema states are the ones the
// validator refuses outside of: a value outside the enum fails both.
func TestSchemaEnums(t *testing.T) {
	cases := []struct {
		typ   Type
		field string
		bad   any
	}{
		{TypeEntity, "kind", "village"},
		{TypeStanding, "standing", "maybe"},
		{TypeEntity, "provenance", map[string]any{"kind": "rumoured", "origin": "x"}},
		{TypeFact, "provenance", map[string]any{"kind": "proposed", "hyp": "x"}},
		{TypeAttack, "claim", "ABC"},
		{TypeRule, "head", map[string]any{"pred": "p", "args": []any{map[string]any{"var": "X", "const": "c"}}}},
	}
	for _, c := range cases {
		data, err := os.ReadFile(goldenPath(c.typ))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m[c.field] = c.bad
		b, _ := json.Marshal(m)
		if _, err := Decode(b); err == nil {
			t.Errorf("%s.%s=%v: decoder accepts", c.typ, c.field, c.bad)
		}
		if validate(Schema(c.typ), m) == nil {
			t.Errorf("%s.%s=%v: schema accepts", c.typ, c.field, c.bad)
		}
	}
}

// validate is a small JSON Schema checker for the keywords Schema uses.
func validate(s map[string]any, v any) error {
	if c, ok := s["const"]; ok && c != v {
		return fmt.Errorf("%v is not %v", v, c)
	}
	if e, ok := s["enum"].([]string); ok {
		found := false
		for _, x := range e {
			found = found || x == v
		}
		if !found {
			return fmt.Errorf("%v not in %v", v, e)
		}
	}
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if validate(a.(map[string]any), v) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%v matches %d of oneOf", v, n)
		}
	}
	switch s["type"] {
	case "string":
		x, ok := v.(string)
		if !ok {
			return fmt.Errorf("%v is not a string", v)
		}
		if m, ok := s["minLength"].(int); ok && len(x) < m {
			return fmt.Errorf("%q too short", x)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(x) {
			return fmt.Errorf("%q does not match %s", x, p)
		}
	case "integer":
		x, ok := v.(float64)
		if !ok || x != float64(int64(x)) {
			return fmt.Errorf("%v is not an integer", v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%v is not a boolean", v)
		}
	case "array":
		x, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%v is not an array", v)
		}
		if m, ok := s["minItems"].(int); ok && len(x) < m {
			return fmt.Errorf("too few items")
		}
		for _, e := range x {
			if err := validate(s["items"].(map[string]any), e); err != nil {
				return err
			}
		}
	case "object":
		return validateObject(s, v)
	}
	return nil
}

// validateObject checks v against an object schema s: its required,
// properties and additionalProperties.
func validateObject(s map[string]any, v any) error {
	x, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%v is not an object", v)
	}
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]string)
	for _, r := range required {
		if _, ok := x[r]; !ok {
			return fmt.Errorf("missing %q", r)
		}
	}
	for k, e := range x {
		p, ok := props[k]
		if !ok {
			if s["additionalProperties"] == false {
				return fmt.Errorf("unknown %q", k)
			}
			continue
		}
		if err := validate(p.(map[string]any), e); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}
