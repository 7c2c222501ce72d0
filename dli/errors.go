// This file holds positions and the errors of the package: Error, one
// problem at a file position, and ErrorList, every problem of a parse,
// sorted and de-duplicated as go/scanner does.

package dli

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Pos is a position in .dli source: a 1-based line and a 1-based column
// counted in characters (Unicode code points, not bytes). The zero Pos is
// no position.
type Pos struct {
	Line int
	Col  int
}

// IsValid reports whether p is a position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String returns "line:col", or "-" for the zero Pos.
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Error is one problem in .dli source.
type Error struct {
	Filename string // the file, or "" when the source has no name
	Pos      Pos
	Msg      string // what was expected and what was found, in lowercase
}

// Error returns "file:line:col: message", the form compilers print.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Filename != "" {
		b.WriteString(e.Filename)
		b.WriteByte(':')
	}
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteByte(':')
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one parse. Parse returns it sorted by
// position with at most one error per line (the first by column), as
// go/scanner's RemoveMultiples leaves a list: the first problem of a line
// is the one worth reading, and the parser recovers at the next
// declaration, so what follows on that line would be noise.
type ErrorList []*Error

// Add appends an error.
func (l *ErrorList) Add(filename string, pos Pos, msg string) {
	*l = append(*l, &Error{Filename: filename, Pos: pos, Msg: msg})
}

// Sort orders the list by file, line and column, keeping the order of
// errors at one position.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		if c := strings.Compare(a.Filename, b.Filename); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Pos.Line, b.Pos.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Pos.Col, b.Pos.Col)
	})
}

// RemoveMultiples sorts the list and keeps only the first error of each
// line.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	out := (*l)[:0]
	for i, e := range *l {
		if i > 0 {
			prev := out[len(out)-1]
			if prev.Filename == e.Filename && prev.Pos.Line == e.Pos.Line {
				continue
			}
		}
		out = append(out, e)
	}
	clear((*l)[len(out):])
	*l = out
}

// Error returns the first error, and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	case 2:
		return l[0].Error() + " (and 1 more error)"
	}
	return l[0].Error() + " (and " + strconv.Itoa(len(l)-1) + " more errors)"
}

// Unwrap returns the errors of the list, so errors.As finds an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Err returns nil for an empty list and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// itoa formats an int.
func itoa(i int) string { return strconv.Itoa(i) }
