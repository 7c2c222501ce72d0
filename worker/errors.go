// The typed errors of the protocol: a stable code, the class that tells a
// client what kind of failure it is, a message for a person and data for a
// program.

package worker

import (
	"errors"
	"fmt"

	"github.com/deloreis/deloreis/fault"
)

// Class says what kind of failure an error is: on the wire, a domain
// error's class (package fault) under the protocol's names.
type Class = fault.Class

// The error classes of the protocol.
const (
	// ClassSchema: the request is malformed (bad JSON, unknown or missing
	// field, wrong type, unknown op).
	ClassSchema = fault.Invalid
	// ClassRefused: the request is well-formed but a precondition failed
	// (stale-fence, materialize-blocked, unknown-doc, killed versions …).
	ClassRefused = fault.Refused
	// ClassConflict: the idempotency key was used with other params.
	ClassConflict = fault.Conflict
	// ClassNotFound: what the request names does not exist.
	ClassNotFound = fault.NotFound
	// ClassInternal: the server failed; the request may be retried.
	ClassInternal = fault.Internal
)

// Error is the typed error every failed call answers with. Data holds
// structured detail (expected and presented digests, blocking findings,
// the replacement of a killed op …) and is merged into the wire object.
type Error struct {
	Code    string         `json:"code"`
	Class   Class          `json:"class"`
	Message string         `json:"message"`
	Data    map[string]any `json:"-"`
}

// Error renders the class, code and message.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.Class, e.Code, e.Message) }

// Errorf makes an error of a class and code with a formatted message.
func Errorf(class Class, code, format string, args ...any) *Error {
	return &Error{Code: code, Class: class, Message: fmt.Sprintf(format, args...)}
}

// With returns the error with one more data field.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data)+1)
	for k, v := range e.Data {
		c.Data[k] = v
	}
	c.Data[key] = value
	return &c
}

// Codes the protocol itself answers with. Handlers add their own
// (stale-fence, materialize-blocked, unknown-doc …), each listed in
// ErrorCodes so that the generated reference names it.
const (
	CodeBadJSON       = "bad-json"
	CodeBadEnvelope   = "bad-envelope"
	CodeBadParams     = fault.CodeBadParams
	CodeUnknownField  = fault.CodeUnknownField
	CodeMissingField  = fault.CodeMissingField
	CodeUnknownOp     = "unknown-op"
	CodeKilledOp      = "killed-op"
	CodeKilledVersion = "killed-version"
	CodeBadVersion    = "unsupported-version"
	CodeFrameTooLarge = "frame-too-large"
	CodeNotMutating   = "not-mutating"
	CodeInternal      = fault.CodeInternal
	CodeDiskFull      = fault.CodeDiskFull
	CodeReadOnly      = fault.CodeReadOnly
)

// asError gives the wire error of any error a handler returns: a *Error
// as it is, a use case's domain error (package fault) field for field,
// a full disk or a refused write as their own codes (DL-0439), anything
// else as an internal error.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	fe, ok := fault.As(err)
	if !ok {
		fe, ok = fault.Environmental(err)
	}
	if ok {
		return &Error{Code: fe.Code, Class: fe.Class, Message: fe.Message, Data: fe.Data}
	}
	return Errorf(ClassInternal, CodeInternal, "%v", err)
}
