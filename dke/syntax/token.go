// Tokens and positions.

package syntax

import (
	"fmt"

	"github.com/deloreis/deloreis/dke/keywords"
)

// Pos is a position in a source: a 1-based line, a 1-based column counted
// in characters, and the byte offset.
type Pos struct {
	Line, Col int32
	Off       int32
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders line:col.
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Before reports whether p is before q.
func (p Pos) Before(q Pos) bool { return p.Off < q.Off }

// Kind is the kind of a token.
type Kind uint8

// The token kinds.
const (
	ILLEGAL Kind = iota
	EOF
	NEWLINE
	INDENT
	OUTDENT
	IDENT   // a name
	KEYWORD // a hard keyword of the surface; Token.KW says which
	INT
	FLOAT
	STRING
	LPAREN
	RPAREN
	LBRACK
	RBRACK
	COMMA
	COLON
	DOT
	AT
	ARROW // ->
	ASSIGN
	PLUSEQ
	MINUSEQ
	STAREQ
	PLUS
	MINUS
	STAR
	SLASH
	SLASHSLASH
	PERCENT
	EQ
	NE
	LT
	LE
	GT
	GE
	PIPE
)

var kindNames = [...]string{
	ILLEGAL: "illegal token", EOF: "end of file", NEWLINE: "newline",
	INDENT: "indent", OUTDENT: "outdent", IDENT: "name", KEYWORD: "keyword",
	INT: "int", FLOAT: "float", STRING: "string",
	LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", COMMA: ",",
	COLON: ":", DOT: ".", AT: "@", ARROW: "->", ASSIGN: "=", PLUSEQ: "+=",
	MINUSEQ: "-=", STAREQ: "*=", PLUS: "+", MINUS: "-", STAR: "*",
	SLASH: "/", SLASHSLASH: "//", PERCENT: "%", EQ: "==", NE: "!=",
	LT: "<", LE: "<=", GT: ">", GE: ">=", PIPE: "|",
}

// String names the token kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("token(%d)", uint8(k))
}

// Token is one token of a source.
type Token struct {
	Kind Kind
	Pos  Pos // first character
	End  Pos // just after the last character
	// Text is the source text of the token (for NEWLINE, INDENT and
	// OUTDENT it is empty).
	Text string
	KW   keywords.ID // for KEYWORD
	// Value is the decoded value of an INT (int64), FLOAT (float64) or
	// STRING (string) literal.
	Value any
}

// describe names a token for an error message.
func (t Token) describe(lang keywords.Lang) string {
	switch t.Kind {
	case IDENT:
		return fmt.Sprintf("name %s", t.Text)
	case KEYWORD:
		return fmt.Sprintf("keyword %s", keywords.Word(lang, t.KW))
	case INT, FLOAT, STRING:
		return fmt.Sprintf("%s %s", t.Kind, t.Text)
	case NEWLINE, INDENT, OUTDENT, EOF:
		return t.Kind.String()
	}
	return fmt.Sprintf("%q", t.Kind.String())
}
