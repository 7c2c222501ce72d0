// Package objects defines the lore objects of a deloreis lorestore — entities,
// facts, relations, events, orderings, questions, hypotheses, rules,
// declarations, fluent states, decisions, attacks, standing revisions and
// ratify carriage — as Go types that validate themselves, encode to their
// RFC 8785 canonical JSON, and are named by the BLAKE3-256 of those bytes.
//
// Each type has one JSON shape (DESIGN.md section 3, "Shapes"). Encoding is
// hand-written per type: keys are appended in a fixed, pre-sorted order, with
// no maps, reflection or encoding/json, so a canonical form costs one pass.
// Decode reads any JSON text of an object back strictly: unknown fields,
// duplicate keys, wrong JSON types, missing fields and trailing data are
// refused, and the result is validated and normalized (sets sorted and
// de-duplicated), so Decode(Canonical(o)) equals o and Canonical(Decode(b))
// equals b for canonical b.
//
// Validation here is per object and structural: ids follow one rule
// ([ValidID]), free text is valid UTF-8 without control characters, enums are
// known, required fields are present. Every problem is reported as a
// [*FieldError] carrying a condition code and a JSON path, several at once as
// an [ErrorList].
//
// A claim holds its [Provenance] by pointer, and one provenance is shared
// by every object that has the same (Decode hands out one per distinct
// provenance it meets): once attached it is never written (DL-0352).
//
// What this package is not: it does not know a world. Whether a referenced
// entity exists, whether a cited decision is declared, whether a rule is
// range-restricted or stratifiable, and how objects are laid out in a git
// tree are the business of the world, datalog and lorestore packages. It
// does not render the .dli text surface either.
package objects
