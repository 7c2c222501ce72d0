// The scanner: source text to tokens, with NEWLINE, INDENT and OUTDENT
// from an indentation stack and hard keywords of one surface.

package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deloreis/deloreis/dke/diag"
	"github.com/deloreis/deloreis/dke/keywords"
	"golang.org/x/text/unicode/norm"
)

// scanner holds the state of one scan.
type scanner struct {
	src    string
	lang   keywords.Lang
	off    int // byte offset of the next character
	line   int
	col    int // column of the next character
	depth  int // bracket nesting
	indent []int
	toks   []Token
	errs   diag.List
	atBOL  bool // at the beginning of a logical line
}

// Scan splits src into tokens of surface lang. The token list always ends
// with EOF, after a NEWLINE and OUTDENTs closing every open block. Errors
// are parse errors; scanning goes on after each.
func Scan(src string, lang keywords.Lang) ([]Token, diag.List) {
	s := &scanner{src: src, lang: lang, line: 1, col: 1, indent: []int{0}, atBOL: true}
	s.toks = make([]Token, 0, len(src)/4+8)
	s.run()
	return s.toks, s.errs
}

func (s *scanner) pos() Pos { return Pos{Line: int32(s.line), Col: int32(s.col), Off: int32(s.off)} }

func (s *scanner) errorf(p Pos, fix string, format string, args ...any) {
	s.errs.Add(diag.ParseError, int(p.Line), int(p.Col), fmt.Sprintf(format, args...), fix)
}

// peek returns the next character and its width, or -1 at the end.
func (s *scanner) peek() (rune, int) {
	if s.off >= len(s.src) {
		return -1, 0
	}
	c := s.src[s.off]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s.src[s.off:])
}

func (s *scanner) peekAt(n int) byte {
	if s.off+n < len(s.src) {
		return s.src[s.off+n]
	}
	return 0
}

// next consumes one character.
func (s *scanner) next() rune {
	r, w := s.peek()
	if w == 0 {
		return -1
	}
	if r == utf8.RuneError && w == 1 {
		s.errorf(s.pos(), "", "invalid UTF-8 in source")
	}
	s.off += w
	if r == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	return r
}

func (s *scanner) emit(k Kind, start Pos, kw keywords.ID, val any) {
	s.toks = append(s.toks, Token{Kind: k, Pos: start, End: s.pos(), Text: s.src[start.Off:s.off], KW: kw, Value: val})
}

func (s *scanner) run() {
	for {
		if s.atBOL && s.depth == 0 {
			if !s.lineStart() {
				break
			}
		}
		r, _ := s.peek()
		start := s.pos()
		switch {
		case r < 0:
			s.finish()
			return
		case r == ' ' || r == '\t' || r == '\r' || r == '\f':
			s.next()
		case r == '#':
			s.skipComment()
		case r == '\n':
			s.next()
			if s.depth == 0 {
				s.toks = append(s.toks, Token{Kind: NEWLINE, Pos: start, End: start})
				s.atBOL = true
			}
		case r == '\\':
			s.next()
			s.errorf(start, "", "no line continuation with \\: wrap the expression in parentheses")
			for s.peekAt(0) == ' ' || s.peekAt(0) == '\t' {
				s.next()
			}
			if s.peekAt(0) == '#' {
				s.skipComment()
			}
			if s.peekAt(0) == '\r' {
				s.next()
			}
			if s.peekAt(0) == '\n' {
				s.next() // join the lines, as Python would, to go on
			}
		case isNameStart(r):
			s.scanName(start)
		case '0' <= r && r <= '9':
			s.scanNumber(start)
		case r == '"' || r == '\'':
			s.scanString(start)
		default:
			s.scanPunct(start, r)
		}
	}
	s.finish()
}

// lineStart measures the indentation of a new logical line, skipping blank
// and comment-only lines, and emits INDENT or OUTDENTs. It returns false at
// the end of the source.
func (s *scanner) lineStart() bool {
	for {
		width, tabAt := 0, Pos{}
		for {
			r, _ := s.peek()
			if r == ' ' {
				width++
			} else if r == '\t' {
				if !tabAt.IsValid() {
					tabAt = s.pos()
				}
				width += 8 - width%8
			} else if r == '\f' || r == '\r' {
				// ignored
			} else {
				break
			}
			s.next()
		}
		r, _ := s.peek()
		switch r {
		case -1:
			return false
		case '\n':
			s.next()
			continue
		case '#':
			s.skipComment()
			continue
		}
		if tabAt.IsValid() {
			s.errorf(tabAt, "", "tab in indentation: indent with spaces")
		}
		s.atBOL = false
		s.setIndent(width)
		return true
	}
}

func (s *scanner) setIndent(width int) {
	p := s.pos()
	top := s.indent[len(s.indent)-1]
	if width > top {
		s.indent = append(s.indent, width)
		s.toks = append(s.toks, Token{Kind: INDENT, Pos: p, End: p})
		return
	}
	for width < s.indent[len(s.indent)-1] {
		s.indent = s.indent[:len(s.indent)-1]
		s.toks = append(s.toks, Token{Kind: OUTDENT, Pos: p, End: p})
	}
	if width != s.indent[len(s.indent)-1] {
		s.errorf(p, "", "unindent does not match any outer indentation level")
	}
}

func (s *scanner) finish() {
	p := s.pos()
	if n := len(s.toks); n > 0 && s.toks[n-1].Kind != NEWLINE && s.toks[n-1].Kind != OUTDENT {
		s.toks = append(s.toks, Token{Kind: NEWLINE, Pos: p, End: p})
	}
	for len(s.indent) > 1 {
		s.indent = s.indent[:len(s.indent)-1]
		s.toks = append(s.toks, Token{Kind: OUTDENT, Pos: p, End: p})
	}
	s.toks = append(s.toks, Token{Kind: EOF, Pos: p, End: p})
}

func (s *scanner) skipComment() {
	for {
		r, _ := s.peek()
		if r < 0 || r == '\n' {
			return
		}
		s.next()
	}
}

// lineRest returns the source from byte offset off to the end of its line.
func lineRest(src string, off int) string {
	end := strings.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src) - off
	}
	rest := src[off : off+end]
	return strings.TrimSuffix(rest, "\r")
}

func (s *scanner) scanName(start Pos) {
	for {
		r, _ := s.peek()
		if r < 0 || !IsXIDContinue(r) {
			break
		}
		s.next()
	}
	text := s.src[start.Off:s.off]
	if r, _ := s.peek(); (r == '"' || r == '\'') && isStringPrefix(text) {
		s.errorf(start, "", "string prefix %s is not supported: join strings with `+` and convert with `%s(x)`", text, keywords.Word(s.lang, keywords.String))
		s.scanString(s.pos())
		return
	}
	if !isASCII(text) && !norm.NFC.IsNormalString(text) {
		nfc := norm.NFC.String(text)
		fix := nfc + lineRest(s.src, s.off)
		s.errorf(start, fix, "name %s is not in Unicode NFC: write it in composed form", strconv.Quote(text))
		text = nfc
	}
	if id, ok := keywords.LookupHard(s.lang, text); ok {
		s.toks = append(s.toks, Token{Kind: KEYWORD, Pos: start, End: s.pos(), Text: text, KW: id})
		return
	}
	s.toks = append(s.toks, Token{Kind: IDENT, Pos: start, End: s.pos(), Text: text})
}

func isStringPrefix(t string) bool {
	switch strings.ToLower(t) {
	case "f", "r", "b", "rb", "br", "fr", "rf", "u":
		return true
	}
	return false
}

func isASCII(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (s *scanner) digits() {
	for isDigit(s.peekAt(0)) {
		s.next()
	}
}

func (s *scanner) scanNumber(start Pos) {
	s.digits()
	float := false
	if s.peekAt(0) == '.' && isDigit(s.peekAt(1)) {
		float = true
		s.next()
		s.digits()
	}
	if c := s.peekAt(0); c == 'e' || c == 'E' {
		n := 1
		if c1 := s.peekAt(1); c1 == '+' || c1 == '-' {
			n = 2
		}
		if isDigit(s.peekAt(n)) {
			float = true
			for ; n > 0; n-- {
				s.next()
			}
			s.digits()
		}
	}
	if r, _ := s.peek(); r >= 0 && IsXIDContinue(r) {
		for r, _ := s.peek(); r >= 0 && IsXIDContinue(r); r, _ = s.peek() {
			s.next()
		}
		s.errorf(start, "", "invalid number %s", s.src[start.Off:s.off])
		s.emit(INT, start, 0, int64(0))
		return
	}
	text := s.src[start.Off:s.off]
	if float {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			s.errorf(start, "", "float literal %s out of range", text)
		}
		s.emit(FLOAT, start, 0, v)
		return
	}
	if len(text) > 1 && text[0] == '0' {
		s.errorf(start, "", "leading zeros in integer %s", text)
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		s.errorf(start, "", "integer literal %s out of range", text)
	}
	s.emit(INT, start, 0, v)
}

func (s *scanner) scanString(start Pos) {
	q := s.src[s.off]
	triple := s.peekAt(1) == q && s.peekAt(2) == q
	n := 1
	if triple {
		n = 3
	}
	for ; n > 0; n-- {
		s.next()
	}
	var b strings.Builder
	for {
		r, _ := s.peek()
		switch {
		case r < 0 || r == '\n' && !triple:
			s.errorf(start, "", "unterminated string")
			s.emit(STRING, start, 0, b.String())
			return
		case r == rune(q) && (!triple || s.peekAt(1) == q && s.peekAt(2) == q):
			n := 1
			if triple {
				n = 3
			}
			for ; n > 0; n-- {
				s.next()
			}
			s.emit(STRING, start, 0, b.String())
			return
		case r == '\\':
			s.escape(&b)
		default:
			s.next()
			b.WriteRune(r)
		}
	}
}

func (s *scanner) escape(b *strings.Builder) {
	at := s.pos()
	s.next()
	r, _ := s.peek()

	if v, ok := simpleEscapes[r]; ok {
		s.next()
		b.WriteRune(v)
		return
	}
	if r == 'u' || r == 'U' {
		s.next()
		n := 4
		if r == 'U' {
			n = 8
		}
		hex := ""
		for i := 0; i < n; i++ {
			c := s.peekAt(0)
			if !strings.ContainsRune("0123456789abcdefABCDEF", rune(c)) || c == 0 {
				break
			}
			hex += string(rune(c))
			s.next()
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if len(hex) != n || err != nil || !utf8.ValidRune(rune(v)) {
			s.errorf(at, "", "invalid escape \\%c%s", r, hex)
			return
		}
		b.WriteRune(rune(v))
		return
	}
	if r == '\n' || r < 0 {
		s.errorf(at, "", "invalid escape at end of line")
		return
	}
	s.next()
	s.errorf(at, "", "unknown escape \\%c", r)
}

// single and double map operator characters to token kinds; double
// holds the two-character operators by their first character.
var (
	single = [128]Kind{'-': MINUS, '+': PLUS, '*': STAR, '/': SLASH, '=': ASSIGN, '<': LT, '>': GT,
		'(': LPAREN, ')': RPAREN, '[': LBRACK, ']': RBRACK, ',': COMMA, ':': COLON, '.': DOT,
		'@': AT, '%': PERCENT, '|': PIPE}
	double = map[string]Kind{"->": ARROW, "-=": MINUSEQ, "+=": PLUSEQ, "*=": STAREQ, "//": SLASHSLASH,
		"==": EQ, "!=": NE, "<=": LE, ">=": GE}
)

func (s *scanner) scanPunct(start Pos, r rune) {
	rest := s.src[s.off:]
	switch {
	case strings.HasPrefix(rest, "**"):
		s.next()
		s.next()
		s.errorf(start, "", "DKE Python has no ** operator: multiply with *")
		s.emit(STAR, start, 0, nil)
		return
	case r == ';':
		s.next()
		s.errorf(start, "", "no ; between statements: write one statement per line")
		if s.depth == 0 {
			s.toks = append(s.toks, Token{Kind: NEWLINE, Pos: start, End: s.pos()})
		}
		return
	}
	if len(rest) >= 2 {
		if k, ok := double[rest[:2]]; ok {
			s.next()
			s.next()
			s.emit(k, start, 0, nil)
			return
		}
	}
	if r < 128 && single[r] != ILLEGAL {
		k := single[r]
		s.next()
		switch k {
		case LPAREN, LBRACK:
			s.depth++
		case RPAREN, RBRACK:
			if s.depth > 0 {
				s.depth--
			}
		}
		s.emit(k, start, 0, nil)
		return
	}
	s.next()
	switch r {
	case '{':
		s.errorf(start, "", "unexpected %q: DKE Python has no dicts or sets", r)
	case '}':
	default:
		s.errorf(start, "", "unexpected character %q", r)
	}
	s.emit(ILLEGAL, start, 0, nil)
}

var simpleEscapes = map[rune]rune{'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', '"': '"', '\'': '\'', '0': 0}
