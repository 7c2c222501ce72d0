// This file holds the two naming rules of the package: object IDs (BLAKE3-256
// of canonical bytes, written as 64 lowercase hex digits) and ids (the names
// an author gives to entities, keys, predicates, decisions and the like), plus
// the rule for free text.

package objects

import (
	"encoding/hex"
	"errors"
	"unicode"
	"unicode/utf8"

	"github.com/deloreis/deloreis/jcs"
)

// ID names an object: the BLAKE3-256 digest of its canonical JSON bytes. It
// is comparable and usable as a map key. The zero ID names no object.
type ID [32]byte

// idFromDigest converts a jcs digest into an object ID.
func idFromDigest(d jcs.Digest) ID { return ID(d) }

// String returns the ID as 64 lowercase hex digits.
func (id ID) String() string {
	var buf [64]byte
	hex.Encode(buf[:], id[:])
	return string(buf[:])
}

// appendHex appends the 64 lowercase hex digits of id to dst.
func (id ID) appendHex(dst []byte) []byte {
	return hex.AppendEncode(dst, id[:])
}

// IsZero reports whether id is the zero ID, which names no object.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText returns the ID as 64 lowercase hex digits.
func (id ID) MarshalText() ([]byte, error) { return id.appendHex(nil), nil }

// UnmarshalText parses 64 lowercase hex digits, as ParseID does.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := parseIDBytes(text)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// errBadID is returned by ParseID for anything but 64 lowercase hex digits.
var errBadID = errors.New("objects: an object id is exactly 64 lowercase hex digits")

// ParseID parses an object ID written as exactly 64 lowercase hex digits;
// uppercase digits, prefixes and any other length are refused.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return id, errBadID
	}
	for i := 0; i < len(id); i++ {
		hi, ok1 := hexVal(s[2*i])
		lo, ok2 := hexVal(s[2*i+1])
		if !ok1 || !ok2 {
			return ID{}, errBadID
		}
		id[i] = hi<<4 | lo
	}
	return id, nil
}

// parseIDBytes is ParseID over bytes.
func parseIDBytes(b []byte) (ID, error) {
	var id ID
	if len(b) != 2*len(id) {
		return id, errBadID
	}
	for i := 0; i < len(id); i++ {
		hi, ok1 := hexVal(b[2*i])
		lo, ok2 := hexVal(b[2*i+1])
		if !ok1 || !ok2 {
			return ID{}, errBadID
		}
		id[i] = hi<<4 | lo
	}
	return id, nil
}

// hexVal decodes one lowercase hex digit.
func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// MaxIDLen is the longest id, in bytes.
const MaxIDLen = 128

// MaxTextLen is the longest free text field, in bytes (64 KiB).
const MaxTextLen = 64 << 10

// ValidID reports whether s is a valid id: it starts with a Unicode letter or
// digit, continues with letters, digits, combining marks, '-' or '_', is valid
// UTF-8 and at most MaxIDLen bytes long. Everything else — '.', ':',
// whitespace, quotes, other punctuation, control characters — is refused,
// because the .dli text surface uses those characters as delimiters
// ("mireth.tongue = …", "head :- body"). Ids are compared byte for byte; no
// Unicode normalization is applied.
func ValidID(s string) bool { return idProblem(s).code == "" }

// problem describes what is wrong with a string field: a condition code, the
// byte offset and rune where it was found, and the length when too long.
type problem struct {
	code string
	at   int
	r    rune
}

// idClass marks the ASCII bytes allowed in an id: 1 anywhere, 2 only after
// the first character.
var idClass = func() (t [utf8.RuneSelf]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
		t[c-'a'+'A'] = 1
	}
	t['-'], t['_'] = 2, 2
	return t
}()

// idProblem checks s against the id rule. Invalid UTF-8 and control
// characters are reported before the other rules, because they are the
// census conditions every field shares.
func idProblem(s string) problem {
	if s == "" {
		return problem{code: CodeRequired}
	}
	bad := problem{at: -1}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if cls := idClass[c]; cls == 0 || (cls == 2 && i == 0) {
				if c < 0x20 || c == 0x7f {
					return problem{code: CodeControlChar, at: i, r: rune(c)}
				}
				if bad.at < 0 {
					bad = problem{code: CodeInvalidID, at: i, r: rune(c)}
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return problem{code: CodeInvalidUTF8, at: i}
		case unicode.IsControl(r):
			return problem{code: CodeControlChar, at: i, r: r}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case i > 0 && unicode.IsMark(r):
		default:
			if bad.at < 0 {
				bad = problem{code: CodeInvalidID, at: i, r: r}
			}
		}
		i += size
	}
	if len(s) > MaxIDLen {
		return problem{code: CodeTooLong, at: len(s)}
	}
	if bad.at >= 0 {
		return bad
	}
	return problem{}
}

// textProblem checks free text: valid UTF-8, no control characters (Unicode
// category Cc: tab and newline included), at most MaxTextLen bytes, and
// non-empty when required.
func textProblem(s string, required bool) problem {
	if s == "" {
		if required {
			return problem{code: CodeRequired}
		}
		return problem{}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return problem{code: CodeControlChar, at: i, r: rune(c)}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return problem{code: CodeInvalidUTF8, at: i}
		}
		if unicode.IsControl(r) {
			return problem{code: CodeControlChar, at: i, r: r}
		}
		i += size
	}
	if len(s) > MaxTextLen {
		return problem{code: CodeTooLong, at: len(s)}
	}
	return problem{}
}
