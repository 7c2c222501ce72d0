// Package xid holds Unicode's identifier properties XID_Start and
// XID_Continue, which the DKE language and the lorestore's dke/ namespace
// both use: a module name must be one `import <name>` can spell, and the
// store must refuse every name the language would.
package xid

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// isIDStart reports whether r has Unicode's ID_Start property.
func isIDStart(r rune) bool {
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

// isIDContinue reports whether r has Unicode's ID_Continue property.
func isIDContinue(r rune) bool {
	if isIDStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) || unicode.Is(unicode.Other_ID_Continue, r)
}

// Start reports whether r has Unicode's XID_Start property: ID_Start
// closed under NFKC (the NFKC form of r is itself an identifier start
// followed by identifier characters). ASCII is decided at once.
func Start(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	if !isIDStart(r) {
		return false
	}
	for i, c := range norm.NFKC.String(string(r)) {
		if i == 0 && !isIDStart(c) || i > 0 && !isIDContinue(c) {
			return false
		}
	}
	return true
}

// Continue reports whether r has Unicode's XID_Continue property.
func Continue(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	if !isIDContinue(r) {
		return false
	}
	for _, c := range norm.NFKC.String(string(r)) {
		if !isIDContinue(c) {
			return false
		}
	}
	return true
}
