// This file holds the scanner: it turns .dli source into tokens, one at a
// time, tracking line and column. Symbols, comments and strings without
// escapes are substrings of the source, so scanning allocates only for
// strings that hold an escape.

package dli

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// symClass marks the ASCII bytes a symbol may hold: letters, digits, '-'
// and '_'. Whether a symbol is a valid id (it may not start with '-' or
// '_') is the parser's question.
var symClass = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	t['-'], t['_'] = true, true
	return t
}()

// isSymRune reports whether a non-ASCII rune may be part of a symbol.
func isSymRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// scanner reads tokens from src.
type scanner struct {
	src  string
	off  int
	line int
	col  int
	err  func(pos Pos, msg string)
	buf  []byte // unescaping scratch
}

// init readies s to scan src, skipping a leading byte order mark.
func (s *scanner) init(src string, err func(Pos, string)) {
	s.src, s.off, s.line, s.col, s.err = src, 0, 1, 1, err
	if strings.HasPrefix(src, "\uFEFF") {
		s.off = len("\uFEFF")
	}
}

// next returns the next token.
func (s *scanner) next() token {
	for s.off < len(s.src) && (s.src[s.off] == ' ' || s.src[s.off] == '\t') {
		s.off++
		s.col++
	}
	start := s.off
	t := s.scan()
	t.off, t.end = start, s.off
	return t
}

// scan returns the token that starts at off, after any blanks.
func (s *scanner) scan() token {
	pos := Pos{s.line, s.col}
	if s.off >= len(s.src) {
		return token{kind: tEOF, pos: pos}
	}
	c := s.src[s.off]
	if c < utf8.RuneSelf && symClass[c] {
		return token{kind: tSymbol, pos: pos, text: s.symbol()}
	}
	switch c {
	case '\n':
		s.newline(1)
		return token{kind: tNewline, pos: pos}
	case '\r':
		if s.off+1 < len(s.src) && s.src[s.off+1] == '\n' {
			s.newline(2)
			return token{kind: tNewline, pos: pos}
		}
	case '#':
		return s.comment(pos)
	case '"':
		return s.string(pos)
	case '?':
		s.advance(1)
		if s.off < len(s.src) && s.symbolStart() {
			return token{kind: tVar, pos: pos, text: s.symbol()}
		}
		s.err(pos, "expected a variable name after `?`")
		return token{kind: tIllegal, pos: pos}
	case '(':
		return s.punct(tLParen, pos, 1)
	case ')':
		return s.punct(tRParen, pos, 1)
	case ',':
		return s.punct(tComma, pos, 1)
	case '.':
		return s.punct(tDot, pos, 1)
	case '=':
		return s.punct(tEquals, pos, 1)
	case ':':
		if s.off+1 < len(s.src) && s.src[s.off+1] == '-' {
			return s.punct(tImplies, pos, 2)
		}
		return s.punct(tColon, pos, 1)
	}
	if c >= utf8.RuneSelf && s.symbolStart() {
		return token{kind: tSymbol, pos: pos, text: s.symbol()}
	}
	return s.illegal(pos)
}

// advance moves over n ASCII bytes.
func (s *scanner) advance(n int) {
	s.off += n
	s.col += n
}

// newline moves over a line break of n bytes.
func (s *scanner) newline(n int) {
	s.off += n
	s.line++
	s.col = 1
}

// punct returns a punctuation token of n bytes.
func (s *scanner) punct(k tokenKind, pos Pos, n int) token {
	s.advance(n)
	return token{kind: k, pos: pos}
}

// symbolStart reports whether the character at off may be part of a
// symbol.
func (s *scanner) symbolStart() bool {
	c := s.src[s.off]
	if c < utf8.RuneSelf {
		return symClass[c]
	}
	r, _ := utf8.DecodeRuneInString(s.src[s.off:])
	return isSymRune(r)
}

// symbol scans a run of symbol characters.
func (s *scanner) symbol() string {
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c < utf8.RuneSelf {
			if !symClass[c] {
				break
			}
			s.off++
			s.col++
			continue
		}
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		if !isSymRune(r) {
			break
		}
		s.off += size
		s.col++
	}
	return s.src[start:s.off]
}

// illegal reports the character at off, moves over it and returns an
// illegal token.
func (s *scanner) illegal(pos Pos) token {
	c := s.src[s.off]
	if c < utf8.RuneSelf {
		if c < 0x20 || c == 0x7f {
			s.err(pos, "control character "+hexRune(rune(c))+" is not allowed in .dli text")
		} else {
			s.err(pos, "unexpected character `"+string(rune(c))+"`; text that holds it is written as a quoted string")
		}
		s.advance(1)
		return token{kind: tIllegal, pos: pos}
	}
	r, size := utf8.DecodeRuneInString(s.src[s.off:])
	switch {
	case r == utf8.RuneError && size == 1:
		s.err(pos, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(c), 16))
	case unicode.IsControl(r):
		s.err(pos, "control character "+hexRune(r)+" is not allowed in .dli text")
	case unicode.IsSpace(r):
		s.err(pos, "unexpected space character "+hexRune(r)+"; only spaces and tabs separate tokens")
	default:
		s.err(pos, "unexpected character `"+string(r)+"`; text that holds it is written as a quoted string")
	}
	s.off += size
	s.col++
	return token{kind: tIllegal, pos: pos}
}

// hexRune writes r as U+XXXX.
func hexRune(r rune) string {
	h := strconv.FormatUint(uint64(r), 16)
	if len(h) < 4 {
		h = strings.Repeat("0", 4-len(h)) + h
	}
	return "U+" + strings.ToUpper(h)
}

// comment scans '#' to the end of the line. The text is what follows '#',
// without trailing spaces and tabs. Tabs may appear in a comment; other
// control characters and invalid UTF-8 may not.
func (s *scanner) comment(pos Pos) token {
	s.advance(1)
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == '\n' || (c == '\r' && s.off+1 < len(s.src) && s.src[s.off+1] == '\n') {
			break
		}
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				s.err(Pos{s.line, s.col}, "control character "+hexRune(rune(c))+" is not allowed in a comment")
			}
			s.advance(1)
			continue
		}
		r, size := utf8.DecodeRuneInString(s.src[s.off:])
		if r == utf8.RuneError && size == 1 {
			s.err(Pos{s.line, s.col}, "invalid UTF-8 byte 0x"+strconv.FormatUint(uint64(c), 16)+" in a comment")
		} else if unicode.IsControl(r) {
			s.err(Pos{s.line, s.col}, "control character "+hexRune(r)+" is not allowed in a comment")
		}
		s.off += size
		s.col++
	}
	return token{kind: tComment, pos: pos, text: strings.TrimRight(s.src[start:s.off], " \t")}
}

// string scans a quoted string. The escapes are \" and \\; a string holds
// no control character (free text cannot) and ends on its line.
func (s *scanner) string(pos Pos) token {
	s.advance(1)
	start := s.off
	escaped := false
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '"':
			text := s.src[start:s.off]
			s.advance(1)
			if escaped {
				text = s.unescape(text)
			}
			return token{kind: tString, pos: pos, text: text}
		case c == '\\':
			if s.off+1 < len(s.src) && (s.src[s.off+1] == '"' || s.src[s.off+1] == '\\') {
				escaped = true
				s.advance(2)
				continue
			}
			return s.badString(Pos{s.line, s.col}, pos, "unknown escape in string: the escapes are \\\" and \\\\")
		case c == '\n' || c == '\r':
			return s.badString(pos, pos, "string not terminated: a string ends on its own line")
		case c < 0x20 || c == 0x7f:
			return s.badString(Pos{s.line, s.col}, pos, "control character "+hexRune(rune(c))+" in string: free text holds no control characters")
		case c < utf8.RuneSelf:
			s.advance(1)
		default:
			r, size := utf8.DecodeRuneInString(s.src[s.off:])
			if r == utf8.RuneError && size == 1 {
				return s.badString(Pos{s.line, s.col}, pos, "invalid UTF-8 in string")
			}
			if unicode.IsControl(r) {
				return s.badString(Pos{s.line, s.col}, pos, "control character "+hexRune(r)+" in string: free text holds no control characters")
			}
			s.off += size
			s.col++
		}
	}
	return s.badString(pos, pos, "string not terminated: a string ends on its own line")
}

// badString reports msg at the position of a problem in the string that
// starts at pos, then skips to the end of the line.
func (s *scanner) badString(at, pos Pos, msg string) token {
	s.err(at, msg)
	for s.off < len(s.src) && s.src[s.off] != '\n' {
		if s.src[s.off] == '\r' && s.off+1 < len(s.src) && s.src[s.off+1] == '\n' {
			break
		}
		if s.src[s.off]&0xc0 != 0x80 {
			s.col++
		}
		s.off++
	}
	return token{kind: tIllegal, pos: pos}
}

// unescape returns the value of a string body holding escapes.
func (s *scanner) unescape(body string) string {
	b := s.buf[:0]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '\\' {
			i++
			c = body[i]
		}
		b = append(b, c)
	}
	s.buf = b
	return string(b)
}
