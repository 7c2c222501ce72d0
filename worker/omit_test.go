package worker

import (
	"reflect"
	"slices"
	"testing"
)

type omitPoint struct{ X int }

type omitFields struct {
	Plain string    `json:"plain"`
	Empty string    `json:"empty,omitempty"`
	Zero  omitPoint `json:"zero,omitzero"`
	Both  omitPoint `json:"both,omitempty,omitzero"`
}

// TestOmittableFields: a field encoding/json may leave out — omitempty or
// omitzero — is neither required by the schema nor by the decoder; any
// other field is both.
func TestOmittableFields(t *testing.T) {
	req, _ := SchemaOf(reflect.TypeOf(omitFields{}))["required"].([]string)
	if !slices.Equal(req, []string{"plain"}) {
		t.Fatalf("required %v, want [plain]", req)
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"plain":"p"}`, true},
		{`{"plain":"p","zero":{"X":1}}`, true},
		{`{"zero":{"X":1}}`, false},
	} {
		var v omitFields
		if err := decodeStrict([]byte(tc.in), &v, "params"); (err == nil) != tc.ok {
			t.Errorf("decode %s: %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}
