// This file holds the lexical tokens of the .dli surface: their kinds, the
// token value the scanner hands the parser, and the words the grammar
// reserves at the start of a line or of a provenance clause.

package dli

// tokenKind is the kind of a token.
type tokenKind uint8

// The token kinds.
const (
	tEOF     tokenKind = iota
	tNewline           // end of a line
	tComment           // '#' to the end of the line; text is what follows '#'
	tSymbol            // a run of id characters: letters, digits, marks, '-', '_'
	tVar               // '?' and a symbol: an explicit rule variable; text omits '?'
	tString            // a quoted string; text is the unescaped value
	tLParen            // (
	tRParen            // )
	tComma             // ,
	tDot               // .
	tEquals            // =
	tColon             // :
	tImplies           // :-
	tIllegal           // a character the surface does not use; already reported
)

// punct is the source spelling of each punctuation kind.
var punct = [...]string{
	tLParen:  "(",
	tRParen:  ")",
	tComma:   ",",
	tDot:     ".",
	tEquals:  "=",
	tColon:   ":",
	tImplies: ":-",
}

// token is one token: its kind, where it starts, its text, and the byte
// offsets of its first byte and of the byte after it.
type token struct {
	kind     tokenKind
	pos      Pos
	text     string
	off, end int
}

// maxShown is the longest symbol or string quoted whole in a message.
const maxShown = 32

// describe names a token for an error message: "`)`", "`serves`",
// "string \"The Tidewall\"", "end of line".
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tNewline:
		return "end of line"
	case tComment:
		return "a comment"
	case tSymbol:
		return "`" + shorten(t.text) + "`"
	case tVar:
		return "`?" + shorten(t.text) + "`"
	case tString:
		return "string " + string(appendQuoted(nil, shorten(t.text)))
	case tIllegal:
		return "an illegal character"
	}
	return "`" + punct[t.kind] + "`"
}

// shorten cuts s to maxShown runes, marking the cut with "…".
func shorten(s string) string {
	n := 0
	for i := range s {
		if n == maxShown {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Words with a meaning at the start of a declaration line.
const (
	kwScope           = "scope"
	kwEvent           = "event"
	kwBefore          = "before"
	kwQuestion        = "question"
	kwHypothesis      = "hypothesis"
	kwRule            = "rule"
	kwFunctional      = "functional"
	kwInertial        = "inertial"
	kwSameAs          = "same-as"
	kwPredicateSameAs = "predicate-same-as"
	kwState           = "state"
	kwDecision        = "decision"
	kwAttack          = "attack"
	kwStanding        = "standing"
	kwRatify          = "ratify"
	kwRelation        = "relation"
)

// Words with a meaning inside a declaration.
const (
	kwDuring   = "during"
	kwSince    = "since"
	kwUntil    = "until"
	kwOption   = "option"
	kwImplies  = "implies"
	kwNot      = "not"
	kwAgainst  = "against"
	kwOn       = "on"
	kwBy       = "by"
	kwClaim    = "claim"
	kwProposed = "proposed"
	kwCited    = "cited"
)

// isAtomKeyword reports whether a declaration keyword is written in atom
// form, kw(a, b): a relation of that name needs the explicit
// `relation name(a, b)` form.
func isAtomKeyword(s string) bool {
	return s == kwBefore || s == kwSameAs || s == kwPredicateSameAs
}

// isProvenanceWord reports whether s opens a provenance clause.
func isProvenanceWord(s string) bool {
	return s == kwProposed || s == kwHypothesis || s == kwCited
}
