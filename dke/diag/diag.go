// Package diag holds DKE Python's diagnostics: the {class, line, col,
// message, fix?} records that compile and run return, their ordering and
// de-duplication, and the one mechanical way a client applies a fix.
//
// A fix is a replacement for the end of one line: applying it replaces the
// characters of line Line from column Col up to the line break with Fix.
// Columns are 1-based and counted in characters (Unicode code points).
// A fix may hold placeholders, written <var>, <collection> and <source>,
// which the client replaces with program text of its own (see
// Placeholders). It is not a parser and knows nothing of the language.
package diag

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Class is the class of a diagnostic: what stage refused the source.
type Class string

// The classes, in the order a compile reports them: a source with any
// parse error has compile_status parse_error.
const (
	ParseError Class = "parse_error"
	TypeError  Class = "type_error"
)

// Diagnostic is one error found in a source.
type Diagnostic struct {
	// File names the source in printed form; it is not part of the wire
	// record.
	File    string `json:"-"`
	Class   Class  `json:"class" desc:"the kind of fault: syntax, name, type, …"`
	Line    int    `json:"line" desc:"the line of the fault, from 1"`
	Col     int    `json:"col" desc:"the column of the fault, from 1"`
	Message string `json:"message" desc:"what is wrong, and the hint when there is one"`
	// Fix, when present, replaces line Line from column Col to the end of
	// the line. It is present only where one mechanical edit corrects the
	// error.
	Fix string `json:"fix,omitempty" desc:"the text that replaces the line from col to its end and corrects the fault; absent unless one such edit does"`
}

// Error renders the diagnostic compiler-style: file:line:col: class: message.
func (d Diagnostic) Error() string {
	f := d.File
	if f == "" {
		f = "<source>"
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", f, d.Line, d.Col, d.Class, d.Message)
}

// List is a set of diagnostics.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(c Class, line, col int, msg, fix string) {
	*l = append(*l, Diagnostic{Class: c, Line: line, Col: col, Message: msg, Fix: fix})
}

// Sort orders the list by file, line, column, class and message, and
// removes duplicates (same position, class and message; the first fix
// wins).
func (l *List) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Message < b.Message
	})
	out := s[:0]
	for i, d := range s {
		if i > 0 {
			p := out[len(out)-1]
			if p.File == d.File && p.Line == d.Line && p.Col == d.Col && p.Class == d.Class && p.Message == d.Message {
				continue
			}
		}
		out = append(out, d)
	}
	*l = out
}

// Status is the compile_status a list reports: parse_error if any
// diagnostic is a parse error, type_error if any is a type error, "" if
// the list is empty.
func (l List) Status() Class {
	st := Class("")
	for _, d := range l {
		if d.Class == ParseError {
			return ParseError
		}
		st = TypeError
	}
	return st
}

// Err returns the list as an error, or nil if it is empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return ListError(l)
}

// ListError is a non-empty List used as an error.
type ListError List

// Error renders the first diagnostic and how many follow.
func (e ListError) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", e[0].Error(), len(e)-1)
}

// MarshalJSON renders an empty list as [] rather than null.
func (l List) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Diagnostic(l))
}

// ApplyFix applies d's fix to src: it replaces line d.Line from column
// d.Col (characters) to the end of that line with d.Fix. It returns src
// unchanged when d has no fix or its position is not in src. Line breaks
// are "\n" or "\r\n"; the break itself is kept.
func ApplyFix(src string, d Diagnostic) string {
	if d.Fix == "" || d.Line < 1 || d.Col < 1 {
		return src
	}
	start := 0
	for line := 1; line < d.Line; line++ {
		i := strings.IndexByte(src[start:], '\n')
		if i < 0 {
			return src
		}
		start += i + 1
	}
	end := len(src)
	if i := strings.IndexByte(src[start:], '\n'); i >= 0 {
		end = start + i
	}
	if end > start && src[end-1] == '\r' {
		end--
	}
	off := start
	for col := 1; col < d.Col; col++ {
		if off >= end {
			return src
		}
		_, n := utf8.DecodeRuneInString(src[off:end])
		off += n
	}
	return src[:off] + d.Fix + src[end:]
}

// The placeholders a fix may hold, each standing for program text the
// client supplies.
const (
	// VarPlaceholder stands for a new variable name.
	VarPlaceholder = "<var>"
	// CollectionPlaceholder stands for a finite collection expression,
	// such as `list attributes of K` or `list_scripts()`.
	CollectionPlaceholder = "<collection>"
	// SourcePlaceholder stands for a string expression naming a claim's
	// source.
	SourcePlaceholder = "<source>"
)

// placeholders are the placeholders a fix may hold.
var placeholders = [...]string{VarPlaceholder, CollectionPlaceholder, SourcePlaceholder}

// placeholderAt is the placeholder fix holds at i, or "". (A scan, not a
// regular expression: a package-level regexp is compiled on every start
// of every program that links this package, DL-0330.)
func placeholderAt(fix string, i int) string {
	for _, p := range placeholders {
		if strings.HasPrefix(fix[i:], p) {
			return p
		}
	}
	return ""
}

// Placeholders returns the placeholders in fix, in order of appearance.
func Placeholders(fix string) []string {
	var out []string
	for i := 0; i < len(fix); i++ {
		if p := placeholderAt(fix, i); p != "" {
			out = append(out, p)
			i += len(p) - 1
		}
	}
	return out
}

// Fill replaces each placeholder in fix with its value from values;
// placeholders without a value are left as they are.
func Fill(fix string, values map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(fix); i++ {
		if p := placeholderAt(fix, i); p != "" {
			if v, ok := values[p]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(p)
			}
			i += len(p) - 1
			continue
		}
		b.WriteByte(fix[i])
	}
	return b.String()
}
