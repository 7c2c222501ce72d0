// Field findings: an object that fails validation is refused by the wire
// (a schema error stores nothing); where a caller wants the census as
// findings instead — the per-declaration census of rules, imports of
// hand-written files — the control-character condition maps to
// field.control-char, one finding per field.

package world

import "github.com/deloreis/deloreis/objects"

// FieldFindings turns the validation error of an object into findings:
// field.control-char for each field that holds a control character.
// Other field errors are not findings; they stay errors.
func FieldFindings(err error) []Finding {
	out := []Finding{}
	for _, fe := range objects.FieldErrors(err) {
		if fe.Code != objects.CodeControlChar {
			continue
		}
		f := newFinding(CodeFieldControlChar, "The %s field %s holds a control character; remove it.", fe.Type, fe.Field)
		f.Data = map[string]any{"type": string(fe.Type), "field": fe.Field}
		out = append(out, f)
	}
	return out
}
