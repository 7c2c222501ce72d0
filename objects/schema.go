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
		out = append(out, FieldSchema{Name: fieldNames[f], Required: req, Schema: withDesc(valueSchema(t, f, opt), fieldDesc(t, f))})
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
	props := map[string]any{"type": map[string]any{"const": string(t), "description": fieldDescs[fType]}}
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
		return map[string]any{"type": "array", "items": optionSchema()}
	case fHead:
		return atomSchema()
	case fBody:
		return map[string]any{"type": "array", "items": closed(map[string]any{
			"atom":    withDesc(atomSchema(), "the literal's atom"),
			"negated": withDesc(map[string]any{"type": "boolean"}, "true for a negated literal (not atom): it holds when the atom does not"),
		}, "atom", "negated")}
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
	kind := func(k ProvenanceKind, desc string) map[string]any {
		return map[string]any{"const": string(k), "description": desc}
	}
	return map[string]any{"type": "object", "description": "a provenance: {kind: proposed, origin}, {kind: hypothesis, hyp} or {kind: cited, decisions, state: provisional | ratified}", "oneOf": []any{
		closed(map[string]any{
			"kind":   kind(ProvenanceProposed, "proposed: the claim is offered, no ruling asserted"),
			"origin": withDesc(strSchema(), "the session or source that proposed it: "+idForm),
		}, "kind", "origin"),
		closed(map[string]any{
			"kind": kind(ProvenanceHypothesis, "hypothesis: the claim holds only under a fork's hyp variable"),
			"hyp":  withDesc(strSchema(), "the id of the hyp variable minted in the fork (author.add_hypothesis)"),
		}, "hyp", "kind"),
		closed(map[string]any{
			"kind":      kind(ProvenanceCited, "cited: the claim rests on recorded decisions"),
			"decisions": withDesc(strSchemas(), "the ids of the decisions cited, at least one, as a set; an unrecorded one is a citation.unknown-decision finding"),
			"state":     withDesc(enum(CitedProvisional, CitedRatified), "provisional or ratified: the citing decisions' standing"),
		}, "decisions", "kind", "state"),
	}}
}

// optionSchema is a question option, as options reads it.
func optionSchema() map[string]any {
	return closed(map[string]any{
		"id":    withDesc(strSchema(), "the option's id, unique in the world: "+idForm),
		"label": withDesc(strSchema(), "the option as shown: "+textForm),
		"implies": withDesc(closed(map[string]any{
			"args": withDesc(strSchemas(), "the constant arguments, in order"),
			"pred": withDesc(strSchema(), "the predicate name"),
		}, "args", "pred"), "a ground atom the option supports, possible while the question is open; absent when it implies none"),
	}, "id", "label")
}

// atomSchema is a rule atom: a predicate over terms, each exactly one of
// a var or a const.
func atomSchema() map[string]any {
	term := map[string]any{"oneOf": []any{
		closed(map[string]any{"var": withDesc(strSchema(), "a variable name, bound by the rule's positive body atoms")}, "var"),
		closed(map[string]any{"const": withDesc(strSchema(), "a constant the argument must equal")}, "const"),
	}}
	return closed(map[string]any{
		"args": withDesc(map[string]any{"type": "array", "items": term}, "the arguments, in order, each {var} or {const}"),
		"pred": withDesc(strSchema(), "the predicate name"),
	}, "args", "pred")
}
