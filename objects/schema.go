// This file exposes each object type's fields as JSON Schema, read off the
// registry the decoder uses (types.go) and the value readers of member
// (decode.go, decode_nested.go), so that an op whose params are an object's
// fields (author.ClaimParams) can publish what it accepts.

package objects

import "sort"

// FieldSchema is one top-level member of an object type: its JSON name,
// whether the decoder refuses the object without it, and the JSON Schema
// of its value.
type FieldSchema struct {
	Name     string
	Required bool
	Schema   map[string]any
}

// Fields returns the top-level members of objects of type t other than
// "type", sorted by name, or nil for an unknown type. Required and optional
// are the registry's sets; each value schema follows the reader member
// uses for that field.
func Fields(t Type) []FieldSchema {
	spec := lookupType(t)
	if spec == nil {
		return nil
	}
	var out []FieldSchema
	for f := fType + 1; f < nFields; f++ {
		req, opt := spec.required.has(f), spec.optional.has(f)
		if !req && !opt {
			continue
		}
		out = append(out, FieldSchema{Name: fieldNames[f], Required: req, Schema: valueSchema(t, f, opt)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Schema returns the JSON Schema of a whole object of type t, "type"
// included, closed as Decode is; nil for an unknown type.
func Schema(t Type) map[string]any {
	fs := Fields(t)
	if fs == nil {
		return nil
	}
	props := map[string]any{"type": map[string]any{"const": string(t)}}
	required := []string{"type"}
	for _, f := range fs {
		props[f.Name] = f.Schema
		if f.Required {
			required = append(required, f.Name)
		}
	}
	sort.Strings(required)
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// valueSchema is the schema of member f of a t object, one case per reader
// of member's switch. An optional string or list may not be present but
// empty (member refuses it), hence the minimums.
func valueSchema(t Type, f field, optional bool) map[string]any {
	switch f {
	case fProvenance:
		return provenanceSchema()
	case fOptions:
		return map[string]any{"type": "array", "items": optionSchema(), "description": "the options: {id, label, implies?: {pred, args}}"}
	case fHead:
		return withDesc(atomSchema(), "an atom: {pred, args: [{var} or {const}]}")
	case fBody:
		return map[string]any{"type": "array", "items": closed(map[string]any{
			"atom": atomSchema(), "negated": map[string]any{"type": "boolean"}}, "atom", "negated"),
			"description": "the body literals: {atom, negated}"}
	case fClaim:
		return idSchema()
	case fClaims:
		return map[string]any{"type": "array", "items": idSchema()}
	case fConsonants, fVowels, fShapes, fForbid, fWords:
		s := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		if optional {
			s["minItems"] = 1
		}
		return s
	case fAmount, fMinSyllables, fMaxSyllables:
		return map[string]any{"type": "integer"}
	case fKind:
		if t == TypeEntity {
			return enum(KindPerson, KindPlace, KindThing, KindEra)
		}
	case fStanding:
		return enum(StandingProvisional, StandingRatified, StandingDefeated)
	}
	s := map[string]any{"type": "string"}
	if optional {
		s["minLength"] = 1
	}
	return s
}

// enum is the schema of a string taking one of vs.
func enum[S ~string](vs ...S) map[string]any {
	e := make([]string, len(vs))
	for i, v := range vs {
		e[i] = string(v)
	}
	return map[string]any{"type": "string", "enum": e}
}

// closed is the schema of an object with exactly the given properties, of
// which required must be present.
func closed(props map[string]any, required ...string) map[string]any {
	if required == nil {
		required = []string{}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// withDesc returns s with a description.
func withDesc(s map[string]any, desc string) map[string]any {
	s["description"] = desc
	return s
}

func idSchema() map[string]any {
	return map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "an object id: 64 lowercase hex digits"}
}

func strSchema() map[string]any { return map[string]any{"type": "string"} }

func strSchemas() map[string]any { return map[string]any{"type": "array", "items": strSchema()} }

// provenanceSchema is one of the three provenance forms the decoder's
// provenance reader admits, each closed to its kind's members.
func provenanceSchema() map[string]any {
	return map[string]any{"type": "object", "description": "a provenance: {kind: proposed, origin}, {kind: hypothesis, hyp} or {kind: cited, decisions, state: provisional | ratified}", "oneOf": []any{
		closed(map[string]any{"kind": map[string]any{"const": string(ProvenanceProposed)}, "origin": strSchema()}, "kind", "origin"),
		closed(map[string]any{"kind": map[string]any{"const": string(ProvenanceHypothesis)}, "hyp": strSchema()}, "hyp", "kind"),
		closed(map[string]any{"kind": map[string]any{"const": string(ProvenanceCited)}, "decisions": strSchemas(),
			"state": enum(CitedProvisional, CitedRatified)}, "decisions", "kind", "state"),
	}}
}

// optionSchema is a question option, as options reads it.
func optionSchema() map[string]any {
	return closed(map[string]any{"id": strSchema(), "label": strSchema(),
		"implies": closed(map[string]any{"args": strSchemas(), "pred": strSchema()}, "args", "pred")}, "id", "label")
}

// atomSchema is a rule atom: a predicate over terms, each exactly one of
// a var or a const.
func atomSchema() map[string]any {
	term := map[string]any{"oneOf": []any{
		closed(map[string]any{"var": strSchema()}, "var"),
		closed(map[string]any{"const": strSchema()}, "const"),
	}}
	return closed(map[string]any{"args": map[string]any{"type": "array", "items": term}, "pred": strSchema()}, "args", "pred")
}
