// Package fault is the domain error of deloreis's use cases: a class that
// says what kind of failure it is, a stable code, a message for a person
// and data for a program. The use cases (author, the DKE service) return
// it; the adapters shape it for their surface: the worker protocol maps it
// one to one onto its wire error, the command line prints its message.
//
// What it is not: a wire format. It knows no envelope, no JSON-RPC and no
// MCP; the class names match the worker protocol's so that the mapping is
// the identity, but nothing here depends on a transport.
package fault

import (
	"errors"
	"fmt"
)

// Class says what kind of failure an error is.
type Class string

// The classes of failure.
const (
	// Invalid: the request is malformed (a missing or unknown field, a
	// value of the wrong shape, an unknown op).
	Invalid Class = "schema"
	// Refused: the request is well-formed but a precondition failed
	// (a stale fence, a blocked materialize, an undeclared scope …).
	Refused Class = "refused"
	// Conflict: an idempotency key was used with other params, or the
	// store kept changing under the call.
	Conflict Class = "conflict"
	// NotFound: what the request names does not exist.
	NotFound Class = "not-found"
	// Internal: the server failed; the request may be retried.
	Internal Class = "internal"
)

// Codes shared by every use case; each use case adds its own.
const (
	CodeBadParams    = "bad-params"
	CodeMissingField = "missing-field"
	CodeUnknownField = "unknown-field"
	CodeInternal     = "internal"
)

// Error is a typed failure. Data holds structured detail (the expected
// and presented digests, the blocking findings …); adapters merge it into
// what they answer with.
type Error struct {
	Class   Class
	Code    string
	Message string
	Data    map[string]any
}

// Error renders the class, code and message.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.Class, e.Code, e.Message) }

// Errorf makes an error of a class and code with a formatted message.
func Errorf(class Class, code, format string, args ...any) *Error {
	return &Error{Class: class, Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns the error with one more data field; e is not changed.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Data = make(map[string]any, len(e.Data)+1)
	for k, v := range e.Data {
		c.Data[k] = v
	}
	c.Data[key] = value
	return &c
}

// As finds the typed error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Of gives the typed error of any error: a *Error in its chain as it is,
// anything else as an internal error carrying its text.
func Of(err error) *Error {
	if e, ok := As(err); ok {
		return e
	}
	return Errorf(Internal, CodeInternal, "%v", err)
}

// CodeOf is the code of a typed error in err's chain, or "".
func CodeOf(err error) string {
	if e, ok := As(err); ok {
		return e.Code
	}
	return ""
}
