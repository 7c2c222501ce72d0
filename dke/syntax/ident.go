// Names: the XID_Start / XID_Continue shape of identifiers, NFC, and the
// stricter rule for module names.

package syntax

import (
	"fmt"
	"unicode/utf8"

	"github.com/deloreis/deloreis/base/xid"
	"golang.org/x/text/unicode/norm"
)

// IsXIDStart reports whether r has Unicode's XID_Start property
// (internal/xid, shared with the lorestore's dke/ names).
func IsXIDStart(r rune) bool { return xid.Start(r) }

// IsXIDContinue reports whether r has Unicode's XID_Continue property.
func IsXIDContinue(r rune) bool { return xid.Continue(r) }

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
