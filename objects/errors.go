// This file holds the error values of the package — FieldError, ErrorList and
// the condition codes — and the checker that validation uses to collect every
// problem of an object without allocating when there is none.

package objects

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Condition codes carried by FieldError.Code.
const (
	// CodeControlChar: a field contains a control character (Unicode Cc,
	// tab and newline included).
	CodeControlChar = "field.control-char"
	// CodeRequired: a required field is missing or empty, or an optional
	// field is present but empty.
	CodeRequired = "field.required"
	// CodeInvalidID: a field is not a valid id (see ValidID) or not a valid
	// object ID (64 lowercase hex digits).
	CodeInvalidID = "field.invalid-id"
	// CodeInvalidEnum: a field holds a value outside its enumeration, or the
	// "type" of an object is not a lore object type.
	CodeInvalidEnum = "field.invalid-enum"
	// CodeTooLong: an id exceeds MaxIDLen or free text exceeds MaxTextLen.
	CodeTooLong = "field.too-long"
	// CodeDuplicate: an option id repeats within its question.
	CodeDuplicate = "field.duplicate"
	// CodeInvalidUTF8: a string is not valid UTF-8.
	CodeInvalidUTF8 = "field.invalid-utf8"
	// CodeUnknown: a field the shape does not have — unknown to the type, or
	// not a field of the given provenance kind or term form.
	CodeUnknown = "field.unknown"
	// CodeType: a field has the wrong JSON type (decode only).
	CodeType = "field.type"
	// CodeInvalidJSON: the input is not JSON, has trailing data or repeats a
	// key within one object (decode only).
	CodeInvalidJSON = "field.invalid-json"
)

// FieldError is one problem with one field of an object.
type FieldError struct {
	// Type is the object type, or "" when the input named no known type.
	Type Type
	// Field is a JSON path to the field, such as "provenance.origin" or
	// "options[2].label"; "" means the object as a whole.
	Field string
	// Code is the condition code, one of the Code constants.
	Code string
	// Message says, in lowercase, what is wrong and where.
	Message string
}

// Error returns the type and the message.
func (e *FieldError) Error() string {
	if e.Type == "" {
		return "object: " + e.Message
	}
	return string(e.Type) + ": " + e.Message
}

// ErrorList is several FieldErrors, sorted by Field. Validate and Decode
// return a bare *FieldError when there is exactly one problem.
type ErrorList []*FieldError

// Error joins the messages of every error in the list.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors of the list, so errors.As finds a *FieldError.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Sort orders the list by Field, keeping the order of errors on one field.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *FieldError) int { return strings.Compare(a.Field, b.Field) })
}

// Err returns nil for an empty list, the single *FieldError of a list of
// one, and otherwise the list itself, sorted.
func (l ErrorList) Err() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	l.Sort()
	return l
}

// checker collects the problems of one object as it is validated.
type checker struct {
	typ  Type
	errs ErrorList
}

// add records one problem.
func (c *checker) add(field, code, msg string) {
	c.errs = append(c.errs, &FieldError{Type: c.typ, Field: field, Code: code, Message: msg})
}

// err returns what the checker found, as Validate returns it.
func (c *checker) err() error { return c.errs.Err() }

// What a string field is, for messages about it.
const (
	asID   = "id"
	asText = "text"
)

// report records problem p of the string field at path, of kind asID or
// asText.
func (c *checker) report(path string, p problem, kind string) {
	var msg string
	switch p.code {
	case CodeRequired:
		msg = path + " is required"
	case CodeControlChar:
		msg = fmt.Sprintf("%s contains control character U+%04X at byte %d", path, p.r, p.at)
	case CodeInvalidUTF8:
		msg = fmt.Sprintf("%s is not valid utf-8 at byte %d", path, p.at)
	case CodeTooLong:
		limit := MaxTextLen
		if kind == asID {
			limit = MaxIDLen
		}
		msg = fmt.Sprintf("%s is %d bytes; %s is at most %d bytes", path, p.at, article(kind), limit)
	case CodeInvalidID:
		where := "after the first character"
		if p.at == 0 {
			where = "as the first character"
		}
		msg = fmt.Sprintf("%s is not a valid id: %q at byte %d is not allowed %s "+
			"(an id starts with a letter or digit, then letters, digits, combining marks, '-' or '_')",
			path, p.r, p.at, where)
	default:
		msg = path + " is invalid"
	}
	c.add(path, p.code, msg)
}

// article names a kind of string field with its article.
func article(kind string) string {
	if kind == asID {
		return "an id"
	}
	return "free text"
}

// id checks a required id at a fixed path.
func (c *checker) id(path, s string) {
	if p := idProblem(s); p.code != "" {
		c.report(path, p, asID)
	}
}

// optID checks an optional id at a fixed path: empty is allowed.
func (c *checker) optID(path, s string) {
	if s != "" {
		c.id(path, s)
	}
}

// idAt checks a required id whose path is computed only on failure.
func (c *checker) idAt(s string, path func() string) {
	if p := idProblem(s); p.code != "" {
		c.report(path(), p, asID)
	}
}

// text checks free text at a fixed path.
func (c *checker) text(path, s string, required bool) {
	if p := textProblem(s, required); p.code != "" {
		c.report(path, p, asText)
	}
}

// textAt checks required free text whose path is computed only on failure.
func (c *checker) textAt(s string, path func() string) {
	if p := textProblem(s, true); p.code != "" {
		c.report(path(), p, asText)
	}
}

// objectID checks a reference to an object: the zero ID names nothing.
func (c *checker) objectID(path string, id ID) {
	if id.IsZero() {
		c.add(path, CodeRequired, path+" is required (the zero id names no object)")
	}
}

// enum checks that s is one of values; empty is reported as required.
func (c *checker) enum(path, s string, ok bool, values string) {
	switch {
	case s == "":
		c.add(path, CodeRequired, path+" is required")
	case !ok:
		c.add(path, CodeInvalidEnum, fmt.Sprintf("%s %s is not one of %s", path, quoteShort(s), values))
	}
}

// unknown records a field the shape does not have.
func (c *checker) unknown(path, why string) {
	c.add(path, CodeUnknown, path+" is not a field of "+why)
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// indexPath returns prefix[i].
func indexPath(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}

// FieldErrors returns the field errors an error holds: those of an
// ErrorList, or the one *FieldError; nil for any other error.
func FieldErrors(err error) []*FieldError {
	var list ErrorList
	var one *FieldError
	switch {
	case errors.As(err, &list):
		return list
	case errors.As(err, &one):
		return []*FieldError{one}
	}
	return nil
}
