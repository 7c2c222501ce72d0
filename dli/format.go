// This file holds the formatter: Format writes a Document, and RenderDecl
// and AppendDecl one declaration, in the canonical surface. Rendering is a
// pure function of the AST; it appends to one buffer with no fmt, regexp
// or reflection. The spacing rules are the table in docs/dli-grammar.md.

package dli

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deloreis/deloreis/objects"
)

// The spacing of the canonical surface (docs/dli-grammar.md, "Spacing").
const (
	// entityColumn is the 0-based column at which an entity line's
	// provenance starts, when the line is short enough.
	entityColumn = 27
	// entityMinGap is the fewest spaces between an entity and its
	// provenance, for entity lines too long to reach entityColumn.
	entityMinGap = 2
	// tabularGap is the spaces between a fact or relation and its
	// provenance.
	tabularGap = 5
	// indent opens a continuation line.
	indent = "  "
)

// provStyle says how a provenance clause is spaced.
type provStyle uint8

const (
	// prose: `proposed session-7c9`, one space after the keyword.
	prose provStyle = iota
	// tabular: `proposed  session-7c9`, two spaces after the keyword.
	tabular
)

// Format returns the canonical text of doc. It is a pure function of the
// AST: positions are ignored, and the Blank flags and comments are written
// where the AST puts them. Declarations render as AppendDecl renders them.
func Format(doc *Document) []byte {
	b := make([]byte, 0, 64*len(doc.Decls)+256)
	if doc.Grammar == Grammar {
		b = append(b, HeaderLine...)
		b = append(b, '\n')
	} else if doc.Grammar != "" {
		b = append(b, "# grammar: "...)
		b = appendCommentText(b, doc.Grammar)
		b = append(b, '\n')
	}
	b = appendComments(b, doc.Leading)
	if doc.Scope != "" {
		b = appendBlank(b, doc.ScopeBlank)
		b = append(b, kwScope+" "...)
		b = appendSym(b, doc.Scope)
		b = append(b, '\n')
	}
	for i := range doc.Decls {
		d := &doc.Decls[i]
		if d.Object == nil {
			continue
		}
		b = appendComments(b, d.Comments)
		b = appendBlank(b, d.Blank)
		b = AppendDecl(b, d.Object)
	}
	return appendComments(b, doc.Trailing)
}

// appendBlank appends a blank line when blank is set and b is not empty.
func appendBlank(b []byte, blank bool) []byte {
	if blank && len(b) > 0 {
		b = append(b, '\n')
	}
	return b
}

// appendComments appends comment lines.
func appendComments(b []byte, cs []Comment) []byte {
	for i := range cs {
		b = appendBlank(b, cs[i].Blank)
		b = append(b, '#')
		b = appendCommentText(b, cs[i].Text)
		b = append(b, '\n')
	}
	return b
}

// appendCommentText appends comment text without trailing spaces or tabs;
// a control character other than tab, which no parsed comment holds, is
// written as U+FFFD so the comment stays one line.
func appendCommentText(b []byte, s string) []byte {
	s = strings.TrimRight(s, " \t")
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unicode.IsControl(r) {
			r = utf8.RuneError
		}
		b = utf8.AppendRune(b, r)
		i += size
	}
	return b
}

// RenderDecl returns the canonical lines of one declaration, without line
// ends: what the author.* tools return in "rendered", such as
// ["before(the-drowning, the-reclaiming)", "  proposed session-7c9"].
//
// obj should be valid (obj.Validate() == nil); RenderDecl does not check.
// An invalid object renders without panicking, as text the parser refuses
// or reads differently: an id that is not an id is quoted, and a control
// character, which no valid text holds, is written as U+FFFD.
func RenderDecl(obj objects.Object) []string {
	b := AppendDecl(make([]byte, 0, 96), obj)
	s := string(b)
	lines := make([]string, 0, bytes.Count(b, []byte{'\n'}))
	for s != "" {
		i := strings.IndexByte(s, '\n')
		lines = append(lines, s[:i])
		s = s[i+1:]
	}
	return lines
}

// RenderOption returns the canonical line of one question option, indented
// as it stands below its question: what author.add_option returns in
// "rendered", such as `  option the-tidewall "The Tidewall"`.
func RenderOption(o *objects.Option) string {
	return string(appendOption(make([]byte, 0, 64), o))
}

// AppendDecl appends the canonical lines of one declaration to dst, each
// ending in '\n', and returns the extended buffer. It renders as
// RenderDecl does.
func AppendDecl(dst []byte, obj objects.Object) []byte {
	switch x := obj.(type) {
	case *objects.Entity:
		start := len(dst)
		dst = append(dst, x.Kind...)
		dst = append(dst, ' ')
		dst = appendSym(dst, x.Ident)
		dst = append(dst, ' ')
		dst = appendQuoted(dst, x.Name)
		dst = padTo(dst, start, entityColumn, entityMinGap)
		dst = appendProv(dst, x.Provenance, tabular)
	case *objects.Fact:
		dst = appendFactHead(dst, x.Entity, x.Key, x.Value)
		dst = appendSpaces(dst, tabularGap)
		dst = appendProv(dst, x.Provenance, tabular)
	case *objects.Relation:
		if isAtomKeyword(x.Relation) {
			dst = append(dst, kwRelation+" "...)
		}
		dst = appendPair(dst, x.Relation, x.From, x.To)
		dst = appendSpaces(dst, tabularGap)
		dst = appendProv(dst, x.Provenance, tabular)
	case *objects.Event:
		dst = append(dst, kwEvent+" "...)
		dst = appendSym(dst, x.Ident)
		dst = append(dst, " "+kwDuring+" "...)
		dst = appendSym(dst, x.Era)
		dst = appendProseProv(dst, x.Provenance)
	case *objects.Before:
		dst = appendPair(dst, kwBefore, x.Earlier, x.Later)
		dst = appendProvLine(dst, x.Provenance)
	case *objects.SameAs:
		dst = appendPair(dst, kwSameAs, x.Left, x.Right)
		dst = appendProvLine(dst, x.Provenance)
	case *objects.PredicateSameAs:
		dst = appendPair(dst, kwPredicateSameAs, x.Left, x.Right)
		dst = appendProvLine(dst, x.Provenance)
	default:
		return appendOther(dst, obj)
	}
	return append(dst, '\n')
}

// appendOther appends the declarations AppendDecl does not handle inline.
func appendOther(dst []byte, obj objects.Object) []byte {
	switch x := obj.(type) {
	case *objects.Question:
		return appendQuestion(dst, x)
	case *objects.Hypothesis:
		dst = append(dst, kwHypothesis+" "...)
		dst = appendSym(dst, x.Ident)
		dst = append(dst, ' ')
		dst = appendQuoted(dst, x.Statement)
	case *objects.Rule:
		dst = appendRule(dst, x)
	case *objects.Functional:
		dst = appendPredDecl(dst, kwFunctional, x.Pred, x.Provenance)
	case *objects.Inertial:
		dst = appendPredDecl(dst, kwInertial, x.Pred, x.Provenance)
	case *objects.State:
		dst = appendState(dst, x)
	case *objects.Decision:
		dst = append(dst, kwDecision+" "...)
		dst = appendSym(dst, x.Ident)
		if x.Rationale != "" {
			dst = append(dst, ' ')
			dst = appendQuoted(dst, x.Rationale)
		}
		if x.Provenance != nil {
			dst = appendProseProv(dst, x.Provenance)
		}
	case *objects.Attack:
		dst = append(dst, kwAttack+" "...)
		dst = appendSym(dst, x.Attacker)
		dst = append(dst, " "+kwAgainst+" "...)
		dst = appendSym(dst, x.Target)
		dst = append(dst, " "+kwOn+" "...)
		dst = appendObjectID(dst, x.Claim)
	case *objects.Standing:
		dst = append(dst, kwStanding+" "...)
		dst = appendObjectID(dst, x.Claim)
		dst = append(dst, ' ')
		dst = appendSym(dst, string(x.Standing))
		dst = append(dst, " "+kwBy+" "...)
		dst = appendSym(dst, x.Decision)
	case *objects.Ratify:
		return appendRatify(dst, x)
	default:
		dst, _ = appendLanguage(dst, obj) // language.go
		return dst
	}
	return append(dst, '\n')
}

// appendPair appends `name(a, b)`.
func appendPair(dst []byte, name, a, b string) []byte {
	dst = appendSym(dst, name)
	dst = append(dst, '(')
	dst = appendSym(dst, a)
	dst = append(dst, ", "...)
	dst = appendSym(dst, b)
	return append(dst, ')')
}

// appendFactHead appends `entity.key = value`.
func appendFactHead(dst []byte, entity, key, value string) []byte {
	dst = appendSym(dst, entity)
	dst = append(dst, '.')
	dst = appendSym(dst, key)
	dst = append(dst, " = "...)
	return appendSym(dst, value)
}

// appendState appends `state entity.key = value [since a] [until b] prov`.
func appendState(dst []byte, x *objects.State) []byte {
	dst = append(dst, kwState+" "...)
	dst = appendFactHead(dst, x.Entity, x.Key, x.Value)
	if x.Since != "" {
		dst = append(dst, " "+kwSince+" "...)
		dst = appendSym(dst, x.Since)
	}
	if x.Until != "" {
		dst = append(dst, " "+kwUntil+" "...)
		dst = appendSym(dst, x.Until)
	}
	return appendProseProv(dst, x.Provenance)
}

// appendPredDecl appends `functional pred prov` or `inertial pred prov`.
func appendPredDecl(dst []byte, kw, pred string, p *objects.Provenance) []byte {
	dst = append(dst, kw...)
	dst = append(dst, ' ')
	dst = appendSym(dst, pred)
	return appendProseProv(dst, p)
}

// appendQuestion appends a question and its option lines.
func appendQuestion(dst []byte, x *objects.Question) []byte {
	dst = append(dst, kwQuestion+" "...)
	dst = appendSym(dst, x.Ident)
	dst = append(dst, ' ')
	dst = appendQuoted(dst, x.Prompt)
	dst = append(dst, '\n')
	for i := range x.Options {
		dst = appendOption(dst, &x.Options[i])
		dst = append(dst, '\n')
	}
	return dst
}

// appendOption appends `  option id "label" [implies pred(arg, …)]`.
func appendOption(dst []byte, o *objects.Option) []byte {
	dst = append(dst, indent+kwOption+" "...)
	dst = appendSym(dst, o.Ident)
	dst = append(dst, ' ')
	dst = appendQuoted(dst, o.Label)
	if a := o.Implies; a != nil {
		dst = append(dst, " "+kwImplies+" "...)
		dst = appendSym(dst, a.Pred)
		dst = append(dst, '(')
		for i, arg := range a.Args {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendSym(dst, arg)
		}
		dst = append(dst, ')')
	}
	return dst
}

// appendRule appends `rule name: head :- body` and its provenance line.
func appendRule(dst []byte, x *objects.Rule) []byte {
	dst = append(dst, kwRule+" "...)
	dst = appendSym(dst, x.Name)
	dst = append(dst, ": "...)
	dst = appendAtom(dst, &x.Head)
	dst = append(dst, " :- "...)
	for i := range x.Body {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		if x.Body[i].Negated {
			dst = append(dst, kwNot+" "...)
		}
		dst = appendAtom(dst, &x.Body[i].Atom)
	}
	return appendProvLine(dst, x.Provenance)
}

// appendAtom appends `pred(term, …)`.
func appendAtom(dst []byte, a *objects.Atom) []byte {
	dst = appendSym(dst, a.Pred)
	dst = append(dst, '(')
	for i := range a.Args {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendTerm(dst, a.Args[i])
	}
	return append(dst, ')')
}

// appendTerm appends a rule term. A variable whose name starts with an
// upper case letter is bare; any other variable is written `?name`. A
// constant is bare when it is an id that does not start with an upper case
// letter, and quoted otherwise.
func appendTerm(dst []byte, t objects.Term) []byte {
	if t.IsVar() {
		if isVarName(t.Var) && objects.ValidID(t.Var) {
			return append(dst, t.Var...)
		}
		dst = append(dst, '?')
		return appendSym(dst, t.Var)
	}
	if isVarName(t.Const) {
		return appendQuoted(dst, t.Const)
	}
	return appendSym(dst, t.Const)
}

// appendRatify appends `ratify decision` and one `  claim id` line per
// claim, sorted and without repeats: the claims are a set.
func appendRatify(dst []byte, x *objects.Ratify) []byte {
	dst = append(dst, kwRatify+" "...)
	dst = appendSym(dst, x.Decision)
	dst = append(dst, '\n')
	claims := x.Claims
	if !slices.IsSortedFunc(claims, compareIDs) {
		claims = slices.Clone(claims)
		slices.SortFunc(claims, compareIDs)
	}
	for i, id := range claims {
		if i > 0 && id == claims[i-1] {
			continue
		}
		dst = append(dst, indent+kwClaim+" "...)
		dst = appendObjectID(dst, id)
		dst = append(dst, '\n')
	}
	return dst
}

// compareIDs orders object ids by their bytes.
func compareIDs(a, b objects.ID) int { return bytes.Compare(a[:], b[:]) }

// appendObjectID appends an object id as 64 lowercase hex digits.
func appendObjectID(dst []byte, id objects.ID) []byte {
	const hex = "0123456789abcdef"
	for _, c := range id {
		dst = append(dst, hex[c>>4], hex[c&15])
	}
	return dst
}

// padTo pads the line that starts at start with spaces to 0-based column
// col (counted in characters), and with at least min spaces.
func padTo(dst []byte, start, col, min int) []byte {
	n := col - utf8.RuneCount(dst[start:])
	if n < min {
		n = min
	}
	return appendSpaces(dst, n)
}

// spaces is a run of spaces to append from.
const spaces = "                                "

// appendSpaces appends n spaces.
func appendSpaces(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}

// appendProseProv appends ` <provenance>` in prose style.
func appendProseProv(dst []byte, p *objects.Provenance) []byte {
	dst = append(dst, ' ')
	return appendProv(dst, p, prose)
}

// appendProvLine ends the line and appends the provenance on an indented
// line of its own.
func appendProvLine(dst []byte, p *objects.Provenance) []byte {
	dst = append(dst, "\n"+indent...)
	return appendProv(dst, p, prose)
}

// appendProv appends a provenance clause: `proposed <origin>`,
// `hypothesis <hyp>` or `cited <decision>[, <decision>…] <state>`, with
// one space after the keyword in prose style and two in tabular style.
// The cited decisions are a set: written sorted and without repeats. A
// missing provenance (nil, invalid) writes nothing, as an empty one does.
func appendProv(dst []byte, p *objects.Provenance, style provStyle) []byte {
	if p == nil {
		return dst
	}
	sep := " "
	if style == tabular {
		sep = "  "
	}
	switch p.Kind {
	case objects.ProvenanceProposed:
		dst = append(dst, kwProposed...)
		dst = append(dst, sep...)
		return appendSym(dst, p.Origin)
	case objects.ProvenanceHypothesis:
		dst = append(dst, kwHypothesis...)
		dst = append(dst, sep...)
		return appendSym(dst, p.Hyp)
	case objects.ProvenanceCited:
	default:
		return dst
	}
	dst = append(dst, kwCited...)
	dst = append(dst, sep...)
	ds := p.Decisions
	if !slices.IsSorted(ds) {
		ds = slices.Clone(ds)
		slices.Sort(ds)
	}
	for i, d := range ds {
		if i > 0 {
			if d == ds[i-1] {
				continue
			}
			dst = append(dst, ", "...)
		}
		dst = appendSym(dst, d)
	}
	dst = append(dst, ' ')
	return appendSym(dst, string(p.State))
}

// appendSym appends s bare when it is a valid id, and quoted otherwise.
// Ids and values (fact and state values, implied atom arguments) render
// through it: a compact token is a symbol, anything else a string.
func appendSym(dst []byte, s string) []byte {
	if objects.ValidID(s) {
		return append(dst, s...)
	}
	return appendQuoted(dst, s)
}

// appendQuoted appends s as a quoted string, escaping '"' and '\'. A
// control character or invalid UTF-8, which no valid text holds, is written
// as U+FFFD.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' && c != 0x7f {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && size == 1) && !unicode.IsControl(r) {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i += size
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		default:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
