// Translation between keyword surfaces: a token-level rewrite that
// replaces each keyword, and each contextual word where the grammar
// expects it, by its spelling on another surface, leaving every other
// character as written.

package syntax

import (
	"fmt"
	"strings"

	"github.com/deloreis/deloreis/dke/keywords"
)

// Translate rewrites src from surface from to surface to. Names, strings,
// comments, numbers and layout are kept byte for byte; only reserved
// words change. It refuses a source using a name that is a hard keyword
// on the target surface, since the translation would not mean the same.
// Scan errors do not stop it: the source need not be a valid program.
func Translate(src string, from, to keywords.Lang) (string, error) {
	if from == to {
		return src, nil
	}
	toks, _ := Scan(src, from)
	var b strings.Builder
	last := 0
	put := func(t Token, id keywords.ID) {
		b.WriteString(src[last:t.Pos.Off])
		b.WriteString(keywords.Word(to, id))
		last = int(t.End.Off)
	}
	for i, t := range toks {
		prev := Token{}
		if i > 0 {
			prev = toks[i-1]
		}
		if prev.Kind == DOT {
			continue // a name after a dot is data, whatever it spells
		}
		switch t.Kind {
		case KEYWORD:
			put(t, t.KW)
		case IDENT:
			if id := contextualAt(toks, i, from); id != keywords.None {
				put(t, id)
				continue
			}
			if id, ok := keywords.LookupHard(to, t.Text); ok {
				return "", fmt.Errorf("%d:%d: name %s is the keyword %s on %s", t.Pos.Line, t.Pos.Col, t.Text, id, to)
			}
		}
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// contextualAt returns the id of the contextual word at toks[i], if the
// grammar expects one there.
func contextualAt(toks []Token, i int, l keywords.Lang) keywords.ID {
	id, ok := keywords.Lookup(l, toks[i].Text)
	if !ok || id.Reserve() != keywords.Contextual {
		return keywords.None
	}
	isKW := func(j int, want keywords.ID) bool {
		return j >= 0 && toks[j].Kind == KEYWORD && toks[j].KW == want
	}
	switch id.Group() {
	case keywords.Collection:
		if id == keywords.Of {
			if i >= 2 && isKW(i-2, keywords.List) {
				return id
			}
			return keywords.None
		}
		if isKW(i-1, keywords.List) {
			return id
		}
	case keywords.Handler:
		if isKW(i-1, keywords.Except) {
			return id
		}
	case keywords.Decorator:
		if i > 0 && toks[i-1].Kind == AT {
			return id
		}
	case keywords.Argument:
		if i > 0 && toks[i-1].Kind == COMMA && i+1 < len(toks) && toks[i+1].Kind == ASSIGN {
			return id
		}
	}
	return keywords.None
}
