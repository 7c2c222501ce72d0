// Package names holds the rule every name a person chooses shares —
// branches, scopes, DKE store ids: it is written in Unicode NFC, it holds
// no character that cannot be seen or that reorders the text around it,
// and two names are one name, for collisions, when their case folds are
// equal (DL-0437).
//
// The rule exists because such names are shown in listings and typed
// back: "main" beside "MAIN", "ma\u200bin" or an "é" made of two code
// points look identical, and a person acting on one would act on another.
package names

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Problem reports what keeps s from being a name ("" when nothing does):
// invalid UTF-8, a character that is invisible or a bidirectional control
// (Unicode's format characters, default-ignorable code points and
// variation selectors), a space other than ASCII's, or a form other than
// NFC. Other rules (the characters git or the id rule allow) belong to
// the caller.
func Problem(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			return "is not valid UTF-8"
		case invisible(r):
			return fmt.Sprintf("holds the invisible or bidirectional control character U+%04X at byte %d", r, i)
		case r != ' ' && unicode.Is(unicode.Zs, r):
			return fmt.Sprintf("holds the space character U+%04X at byte %d", r, i)
		}
	}
	if !norm.NFC.IsNormalString(s) {
		return fmt.Sprintf("is not in Unicode NFC form (write it as %q)", norm.NFC.String(s))
	}
	return ""
}

// validAt tells a real U+FFFD at byte i from a decoding error there.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}

// invisible reports a character that renders as nothing or reorders its
// neighbours: format characters (Cf: zero-width spaces and joiners, the
// bidirectional embeddings, overrides and isolates, the byte-order mark,
// soft hyphen), Unicode's other default-ignorable code points (Hangul
// fillers, the combining grapheme joiner) and variation selectors.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// Fold is the key two names collide under: the case fold of the NFC form,
// so "MAIN", "Main" and "main" share one key, as do "Straße" and
// "STRASSE".
func Fold(s string) string {
	return cases.Fold().String(norm.NFC.String(s))
}

// Collides returns the first of existing that is a different name than s
// with the same fold, and whether there is one. An existing name equal to
// s is not a collision: it is s itself.
func Collides(s string, existing []string) (string, bool) {
	key := Fold(s)
	for _, e := range existing {
		if e != s && Fold(e) == key {
			return e, true
		}
	}
	return "", false
}
