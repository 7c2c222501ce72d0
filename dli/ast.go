// This file holds the AST: a Document of declarations, each wrapping one
// lore object (the node payloads are the types of package objects; this
// package does not redefine them) with its position and its comments.

package dli

import "github.com/deloreis/deloreis/objects"

// Grammar is the grammar version this package reads and writes.
const Grammar = "v0"

// HeaderLine is the canonical header line of a v0 document.
const HeaderLine = "# grammar: v0 (unfrozen; AST normative)"

// Document is one parsed .dli file.
//
// Blank lines are kept only as Blank flags: a run of blank lines before an
// item (a comment, the scope line or a declaration) is one blank line, and
// blank lines at the start and end of a file, or inside a multi-line
// declaration, are dropped.
type Document struct {
	// Grammar is "v0" when the file opens with the grammar header line
	// (`# grammar: v0 …`), and "" when it has none. Format writes
	// HeaderLine for "v0", whatever remark followed the version.
	Grammar    string
	HeaderPos  Pos
	HeaderSpan Span // the header comment line, '#' to its last character

	// Leading holds the comments between the header and the scope line.
	// It is empty when the document has no scope line: comments above the
	// first declaration then belong to that declaration.
	Leading []Comment

	// Scope is the document's scope id, or "" when it has no scope line.
	Scope       string
	ScopePos    Pos
	ScopeSpan   Span // the scope line, `scope` to the end of the id
	ScopeIDSpan Span // the scope id
	ScopeBlank  bool // a blank line precedes the scope line

	// Decls are the declarations, in source order.
	Decls []Decl

	// Trailing holds the comments after the last declaration.
	Trailing []Comment
}

// Decl is one declaration: a lore object, where it starts, and the comment
// lines attached to it. Span, Find and Parts give the span of the whole
// declaration and of each of its parts.
type Decl struct {
	Pos    Pos            // the start of the declaration's first line (column 1)
	Object objects.Object // the declared object; never nil in a parsed Document

	// Comments are the comment lines directly above the declaration (after
	// the previous declaration or the scope line). A comment written
	// inside a multi-line declaration — between a question and its
	// options, say — is kept here too, after the ones above it: the AST
	// has no place between an object's parts, so Format moves it above.
	Comments []Comment

	// Blank reports a blank line between the last of Comments (or the
	// previous item, when there are none) and the declaration's first line.
	Blank bool

	// tab and at place the declaration in its document's position table
	// (see Span and Find); tab is nil for a Decl not made by Parse.
	tab *spanTable
	at  int
}

// Comment is one comment line.
type Comment struct {
	Pos    Pos
	Offset int    // the byte offset of Pos, the '#'
	Text   string // what follows '#', trailing spaces and tabs removed
	Blank  bool   // a blank line precedes the comment
}
