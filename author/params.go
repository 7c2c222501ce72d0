// Params of the claim-staging ops. A claim op's params are the workspace
// and the fields of the lore object it stages, exactly as the object
// registry of package objects defines them (DESIGN.md: a request, its
// staged object and its stored blob read alike), so there is one
// definition of each object's fields, not a parallel struct per op.

package author

import (
	"encoding/json"

	"github.com/deloreis/deloreis/fault"
	"github.com/deloreis/deloreis/objects"
)

// ClaimParams are the params of an op that stages one object of type T:
// {"workspace": …, <the fields of T>}.
type ClaimParams[T objects.Object] struct {
	Workspace string
	Object    T
}

// UnmarshalJSON takes the workspace out and decodes the rest as a T
// through objects.Decode, which refuses unknown, missing and mistyped
// fields and validates the object.
func (p *ClaimParams[T]) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params must be a JSON object")
	}
	raw, ok := fields["workspace"]
	if !ok {
		return fault.Errorf(fault.Invalid, fault.CodeMissingField, `params needs field "workspace"`).With("field", "workspace")
	}
	if err := json.Unmarshal(raw, &p.Workspace); err != nil || p.Workspace == "" {
		return fault.Errorf(fault.Invalid, fault.CodeBadParams, "params: field workspace must be a workspace id").With("field", "workspace")
	}
	if _, ok := fields["type"]; ok {
		return fault.Errorf(fault.Invalid, fault.CodeUnknownField, `params has no field "type"; the op says what it stages`).With("field", "type")
	}
	delete(fields, "workspace")
	var zero T
	typ, _ := json.Marshal(string(zero.Type()))
	fields["type"] = typ
	body, _ := json.Marshal(fields)
	o, err := objects.Decode(body)
	if err != nil {
		return objectError(err)
	}
	t, ok := o.(T)
	if !ok {
		return fault.Errorf(fault.Internal, fault.CodeInternal, "decoded %s, not %s", o.Type(), zero.Type())
	}
	p.Object = t
	return nil
}

// objectError turns an object's decode or validation error into a schema
// error naming the first field at fault (all of them in data).
func objectError(err error) *fault.Error {
	fes := objects.FieldErrors(err)
	if len(fes) == 0 {
		return fault.Errorf(fault.Invalid, CodeInvalidObject, "params: %v", err)
	}
	code := CodeInvalidObject
	switch fes[0].Code {
	case objects.CodeRequired:
		code = fault.CodeMissingField
	case objects.CodeUnknown:
		code = fault.CodeUnknownField
	}
	problems := make([]map[string]string, len(fes))
	for i, fe := range fes {
		problems[i] = map[string]string{"field": fe.Field, "code": fe.Code, "message": fe.Message}
	}
	return fault.Errorf(fault.Invalid, code, "params: %s", fes[0].Message).With("field", fes[0].Field).With("problems", problems)
}
