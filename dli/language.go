// The .dli surface of the expert lane's declarations (objects/language.go):
//
//	dialect <id> consonants(<g>, …) vowels(<g>, …) shapes(<shape>, …) [forbid(<g>, …)] syllables(<min>, <max>) <prov>
//	word <dialect> <form> "<gloss>" <prov>
//	name <entity> "<name>" in <dialect> [from(<word>, …)] <prov>
//	derivation <dialect> <form> from <source-dialect> <source> <prov>
//	ledger <entity>.<account> <amount> at <anchor> <prov>
//
// Each is one line with its provenance in prose style, as a state is. A
// grapheme, form or word that is not an id is quoted, as every value is.

package dli

import (
	"slices"
	"strconv"

	"github.com/deloreis/deloreis/objects"
)

// The declaration keywords of the expert lane, and the words inside them.
const (
	kwDialect    = "dialect"
	kwWord       = "word"
	kwName       = "name"
	kwDerivation = "derivation"
	kwLedger     = "ledger"

	kwConsonants = "consonants"
	kwVowels     = "vowels"
	kwShapes     = "shapes"
	kwForbid     = "forbid"
	kwSyllables  = "syllables"
	kwIn         = "in"
	kwFrom       = "from"
	kwAt         = "at"
)

// appendLanguage appends an expert-lane declaration's line; ok is false
// for any other object.
func appendLanguage(dst []byte, obj objects.Object) ([]byte, bool) {
	switch x := obj.(type) {
	case *objects.Dialect:
		dst = append(dst, kwDialect+" "...)
		dst = appendSym(dst, x.Ident)
		dst = appendList(dst, kwConsonants, x.Consonants, true)
		dst = appendList(dst, kwVowels, x.Vowels, true)
		dst = appendList(dst, kwShapes, x.Shapes, true)
		if len(x.Forbid) > 0 {
			dst = appendList(dst, kwForbid, x.Forbid, true)
		}
		dst = append(dst, " "+kwSyllables+"("...)
		dst = strconv.AppendInt(dst, int64(x.MinSyllables), 10)
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(x.MaxSyllables), 10)
		dst = append(dst, ')')
		dst = appendProseProv(dst, x.Provenance)
	case *objects.Word:
		dst = append(dst, kwWord+" "...)
		dst = appendSym(dst, x.Dialect)
		dst = append(dst, ' ')
		dst = appendSym(dst, x.Form)
		dst = append(dst, ' ')
		dst = appendQuoted(dst, x.Gloss)
		dst = appendProseProv(dst, x.Provenance)
	case *objects.Name:
		dst = append(dst, kwName+" "...)
		dst = appendSym(dst, x.Entity)
		dst = append(dst, ' ')
		dst = appendQuoted(dst, x.Name)
		dst = append(dst, " "+kwIn+" "...)
		dst = appendSym(dst, x.Dialect)
		if len(x.Words) > 0 {
			dst = appendList(dst, kwFrom, x.Words, false)
		}
		dst = appendProseProv(dst, x.Provenance)
	case *objects.Derivation:
		dst = append(dst, kwDerivation+" "...)
		dst = appendSym(dst, x.Dialect)
		dst = append(dst, ' ')
		dst = appendSym(dst, x.Form)
		dst = append(dst, " "+kwFrom+" "...)
		dst = appendSym(dst, x.SourceDialect)
		dst = append(dst, ' ')
		dst = appendSym(dst, x.Source)
		dst = appendProseProv(dst, x.Provenance)
	case *objects.LedgerEntry:
		dst = append(dst, kwLedger+" "...)
		dst = appendSym(dst, x.Entity)
		dst = append(dst, '.')
		dst = appendSym(dst, x.Account)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, x.Amount, 10)
		dst = append(dst, " "+kwAt+" "...)
		dst = appendSym(dst, x.At)
		dst = appendProseProv(dst, x.Provenance)
	default:
		return dst, false
	}
	return append(dst, '\n'), true
}

// appendList appends ` kw(a, b, …)`; a set is written sorted without
// repeats, a list in its order.
func appendList(dst []byte, kw string, ss []string, isSet bool) []byte {
	if isSet {
		ss = sortedSet(ss)
	}
	dst = append(dst, ' ')
	dst = append(dst, kw...)
	dst = append(dst, '(')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendSym(dst, s)
	}
	return append(dst, ')')
}

// sortedSet returns ss sorted without repeats (a copy when it must change).
func sortedSet(ss []string) []string {
	for i := 1; i < len(ss); i++ {
		if ss[i-1] >= ss[i] {
			out := slices.Clone(ss)
			slices.Sort(out)
			return slices.Compact(out)
		}
	}
	return ss
}

// language reads an expert-lane declaration's first line.
func (p *parser) language(d *declState) bool {
	switch p.tok.text {
	case kwDialect:
		return p.dialect(d)
	case kwWord:
		x := &objects.Word{}
		d.what, d.obj, d.prov = "word", x, &x.Provenance
		p.next()
		var ok bool
		if x.Dialect, ok = p.ident("dialect id after `word`"); !ok {
			return false
		}
		if x.Form, ok = p.value("word form after the dialect id"); !ok {
			return false
		}
		x.Gloss, ok = p.text("non-empty quoted gloss after the word form")
		return ok
	case kwName:
		x := &objects.Name{}
		d.what, d.obj, d.prov = "name", x, &x.Provenance
		p.next()
		var ok bool
		if x.Entity, ok = p.ident("entity id after `name`"); !ok {
			return false
		}
		if x.Name, ok = p.text("non-empty quoted name after the entity id"); !ok || !p.word(kwIn, "the name") {
			return false
		}
		if x.Dialect, ok = p.ident("dialect id after `in`"); !ok {
			return false
		}
		if p.tok.kind == tSymbol && p.tok.text == kwFrom {
			p.next()
			x.Words, ok = p.list("word form")
		}
		return ok
	case kwDerivation:
		x := &objects.Derivation{}
		d.what, d.obj, d.prov = "derivation", x, &x.Provenance
		p.next()
		var ok bool
		if x.Dialect, ok = p.ident("dialect id after `derivation`"); !ok {
			return false
		}
		if x.Form, ok = p.value("word form after the dialect id"); !ok || !p.word(kwFrom, "the word form") {
			return false
		}
		if x.SourceDialect, ok = p.ident("source dialect id after `from`"); !ok {
			return false
		}
		x.Source, ok = p.value("source word form after the source dialect id")
		return ok
	}
	x := &objects.LedgerEntry{}
	d.what, d.obj, d.prov = "ledger entry", x, &x.Provenance
	p.next()
	var ok bool
	if x.Entity, ok = p.ident("entity id after `ledger`"); !ok || !p.want(tDot, "`.` after the entity id") {
		return false
	}
	if x.Account, ok = p.ident("account after `.`"); !ok {
		return false
	}
	if x.Amount, ok = p.integer("amount after the account"); !ok || !p.word(kwAt, "the amount") {
		return false
	}
	x.At, ok = p.ident("anchor after `at`")
	return ok
}

// dialect reads `dialect <id> consonants(…) vowels(…) shapes(…)
// [forbid(…)] syllables(<min>, <max>)`.
func (p *parser) dialect(d *declState) bool {
	x := &objects.Dialect{}
	d.what, d.obj, d.prov = "dialect", x, &x.Provenance
	p.next()
	var ok bool
	if x.Ident, ok = p.ident("dialect id after `dialect`"); !ok {
		return false
	}
	for _, l := range []struct {
		kw  string
		dst *[]string
		opt bool
	}{{kwConsonants, &x.Consonants, false}, {kwVowels, &x.Vowels, false}, {kwShapes, &x.Shapes, false}, {kwForbid, &x.Forbid, true}} {
		if l.opt && (p.tok.kind != tSymbol || p.tok.text != l.kw) {
			continue
		}
		if !p.word(l.kw, "the "+kwDialect+" part before it") {
			return false
		}
		// Kept in source order, so that parts and paths agree; the
		// canonical form sorts them.
		if *l.dst, ok = p.list(l.kw[:len(l.kw)-1]); !ok {
			return false
		}
	}
	if !p.word(kwSyllables, "the dialect's lists") || !p.want(tLParen, "`(` after `syllables`") {
		return false
	}
	lo, ok := p.integer("least number of syllables")
	if !ok || !p.want(tComma, "`,` after the least number of syllables") {
		return false
	}
	hi, ok := p.integer("greatest number of syllables")
	if !ok || !p.want(tRParen, "`)` after the greatest number of syllables") {
		return false
	}
	x.MinSyllables, x.MaxSyllables = int(lo), int(hi) // Validate bounds them
	return true
}

// list reads `(<value>, …)`: one or more values.
func (p *parser) list(what string) ([]string, bool) {
	if !p.want(tLParen, "`(` before the ", what, "s") {
		return nil, false
	}
	var out []string
	for {
		v, ok := p.value(what)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.tok.kind == tRParen {
			p.next()
			return out, true
		}
		if !p.want(tComma, "`,` or `)` after the ", what) {
			return nil, false
		}
	}
}

// integer reads a decimal integer written as a symbol (`12`, `-120`).
func (p *parser) integer(what string) (int64, bool) {
	if p.tok.kind != tSymbol {
		p.errExpected(what)
		return 0, false
	}
	n, err := strconv.ParseInt(p.tok.text, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != p.tok.text || n > objects.MaxAmount || n < -objects.MaxAmount {
		p.errorAt(p.tok.pos, "`"+shorten(p.tok.text)+"` is not a canonical integer: expected "+what)
		return 0, false
	}
	p.leaf(p.tok)
	p.next()
	return n, true
}

// languageParts adds the parts of an expert-lane declaration, in source
// order; ok is false for any other object.
func (w *pathWalk) language(o objects.Object) bool {
	list := func(path string, ss []string) {
		for i := range ss {
			w.add(index(path, i))
		}
	}
	switch x := o.(type) {
	case *objects.Dialect:
		w.add("id")
		list("consonants", x.Consonants)
		list("vowels", x.Vowels)
		list("shapes", x.Shapes)
		list("forbid", x.Forbid)
		w.add("min_syllables", "max_syllables")
		w.prov(x.Provenance)
	case *objects.Word:
		w.add("dialect", "form", "gloss")
		w.prov(x.Provenance)
	case *objects.Name:
		w.add("entity", "name", "dialect")
		list("words", x.Words)
		w.prov(x.Provenance)
	case *objects.Derivation:
		w.add("dialect", "form", "source_dialect", "source")
		w.prov(x.Provenance)
	case *objects.LedgerEntry:
		w.add("entity", "account", "amount", "at")
		w.prov(x.Provenance)
	default:
		return false
	}
	return true
}
