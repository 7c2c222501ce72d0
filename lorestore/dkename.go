// Names in the dke/ namespace: DKE store ids, module names and claim
// kinds. Each becomes one tree entry name, so each is checked before a
// batch takes it and again when a commit arrives from elsewhere.

package lorestore

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/deloreis/deloreis/base/xid"
	"github.com/deloreis/deloreis/objects"
	"golang.org/x/text/unicode/norm"
)

// ErrInvalidName matches every *NameError.
var ErrInvalidName = errors.New("lorestore: invalid name")

// NameError reports a name or path the layout has no place for. The batch
// that was asked to take it is unchanged.
type NameError struct {
	What   string // "DKE store id", "module name", "claim kind", "path"
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("lorestore: %s %q: %s", e.What, e.Name, e.Reason)
}

// Unwrap lets errors.Is(err, ErrInvalidName) match.
func (e *NameError) Unwrap() error { return ErrInvalidName }

// checkDKEStore refuses a DKE store id that is not an id (the scope rule:
// letters, digits, '-' and '_', no '.', '/' or control character).
func checkDKEStore(id string) error {
	if !objects.ValidID(id) {
		return &NameError{What: "DKE store id", Name: id, Reason: "not an id (letters, digits, '-' and '_', starting with a letter or digit, at most 128 bytes)"}
	}
	return nil
}

// checkModuleName refuses a module name that `import <name>` could not
// spell: an XID_Start character, then XID_Continue characters, in NFC.
func checkModuleName(name string) error {
	if reason := identProblem(name, false); reason != "" {
		return &NameError{What: "module name", Name: name, Reason: reason}
	}
	return nil
}

// checkClaimKind refuses a claim kind that is not an identifier: as a
// module name, but a leading '_' is allowed (a class name may have one).
func checkClaimKind(kind string) error {
	if reason := identProblem(kind, true); reason != "" {
		return &NameError{What: "claim kind", Name: kind, Reason: reason}
	}
	return nil
}

// identProblem says what keeps s from being an identifier, or "".
func identProblem(s string, underscoreStart bool) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > objects.MaxIDLen:
		return fmt.Sprintf("longer than %d bytes", objects.MaxIDLen)
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	}
	for i, r := range s {
		switch {
		case i == 0 && r == '_' && underscoreStart:
		case i == 0 && !xid.Start(r):
			return fmt.Sprintf("starts with %q, not a letter (XID_Start)", r)
		case i > 0 && !xid.Continue(r):
			return fmt.Sprintf("has %q, not an identifier character (XID_Continue)", r)
		}
	}
	if !norm.NFC.IsNormalString(s) {
		return "not in Unicode NFC"
	}
	return ""
}
