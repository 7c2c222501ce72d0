// Names: the XID_Start / XID_Continue shape of identifiers, NFC, and the
// stricter rule for module names.

package syntax

import (
	"fmt"
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

// IsXIDStart reports whether r has Unicode's XID_Start property: ID_Start
// closed under NFKC (the NFKC form of r is itself an identifier start
// followed by identifier characters).
func IsXIDStart(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	if !isIDStart(r) {
		return false
	}
	k := norm.NFKC.String(string(r))
	for i, c := range k {
		if i == 0 && !isIDStart(c) || i > 0 && !isIDContinue(c) {
			return false
		}
	}
	return true
}

// IsXIDContinue reports whether r has Unicode's XID_Continue property.
func IsXIDContinue(r rune) bool {
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

// isNameStart reports whether r may start a name: XID_Start or '_'.
func isNameStart(r rune) bool { return r == '_' || IsXIDStart(r) }

// CheckModuleName reports whether name is a valid module name: an
// XID_Start character followed by XID_Continue characters, in NFC, with
// no dot and no hyphen. A leading underscore is refused because '_' is not
// XID_Start. The error says what is wrong in a short lowercase message.
func CheckModuleName(name string) error {
	if name == "" {
		return fmt.Errorf("a module name cannot be empty")
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("module name %q is not valid UTF-8", name)
	}
	for i, r := range name {
		switch {
		case r == '.':
			return fmt.Errorf("module name %q has a dot: module names are single identifiers", name)
		case r == '-':
			return fmt.Errorf("module name %q has a hyphen: use an underscore", name)
		case i == 0 && r == '_':
			return fmt.Errorf("module name %q starts with an underscore: a module name starts with a letter (XID_Start)", name)
		case i == 0 && !IsXIDStart(r):
			return fmt.Errorf("module name %q must start with a letter (XID_Start)", name)
		case i > 0 && !IsXIDContinue(r):
			return fmt.Errorf("module name %q has %q, which is not an identifier character (XID_Continue)", name, r)
		}
	}
	if !norm.NFC.IsNormalString(name) {
		return fmt.Errorf("module name %q is not in Unicode NFC: write %q", name, norm.NFC.String(name))
	}
	return nil
}
