// The typed errors of the protocol: a stable code, the class that tells a
// client what kind of failure it is, a message for a person and data for a
// program.

package worker

import (
	"errors"
	"fmt"
)

// Class says what kind of failure an error is.
type Class string

// The error classes of the protocol.
const (
	// ClassSchema: the request is malformed (bad JSON, unknown or missing
	// field, wrong type, unknown op).
	ClassSchema Class = "schema"
	// ClassRefused: the request is well-formed but a precondition failed
	// (stale-fence, materialize-blocked, unknown-doc, killed versions …).
	ClassRefused Class = "refused"
	// ClassConflict: the idempotency key was used with other params.
	ClassConflict Class = "conflict"
	// ClassNotFound: what the request names does not exist.
	ClassNotFound Class = "not-found"
	// ClassInternal: the server failed; the request may be retried.
	ClassInternal Class = "internal"
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
	CodeBadParams     = "bad-params"
	CodeUnknownField  = "unknown-field"
	CodeMissingField  = "missing-field"
	CodeUnknownOp     = "unknown-op"
	CodeKilledOp      = "killed-op"
	CodeKilledVersion = "killed-version"
	CodeBadVersion    = "unsupported-version"
	CodeFrameTooLarge = "frame-too-large"
	CodeNotMutating   = "not-mutating"
	CodeInternal      = "internal"
)

// asError gives the typed error of any error a handler returns: a *Error
// as it is, anything else as an internal error.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(ClassInternal, CodeInternal, "%v", err)
}
