// Just enough of git's config file format for the store's own keys (the
// [remote "x"] sections and user.name / user.email), read as git reads it
// and edited in place, so that deloreis needs no config library and every
// line it does not own stays as the user or git wrote it (DL-0350).

package lorestore

import (
	"errors"
	"fmt"
	"strings"
)

// confEntry is one key of a config file, its value decoded.
type confEntry struct {
	section, sub string // section lower-cased; sub as written ("" for none)
	key          string // lower-cased
	value        string
	noValue      bool // "key" alone on its line: git reads it as true
}

// confBlock is a section header and the lines under it up to the next
// header, as byte offsets into the file; the first block (offset 0, no
// header) holds what comes before any section.
type confBlock struct {
	start, end   int
	section, sub string
	header       bool
}

// confFile is a parsed config file: its text, its keys in order and its
// sections' spans, so that a section can be dropped or appended without
// rewriting the rest.
type confFile struct {
	text    string
	entries []confEntry
	blocks  []confBlock
}

// parseConfig reads a git config file. Include directives are not
// followed; a syntax error names the line, as git's "bad config line" does.
func parseConfig(text string) (*confFile, error) {
	p := &confParser{s: strings.TrimPrefix(text, "\ufeff"), line: 1}
	p.off = len(text) - len(p.s)
	cf := &confFile{text: text, blocks: []confBlock{{start: 0}}}
	var section, sub string
	for {
		p.skipSpace(true)
		if p.eof() {
			break
		}
		switch c := p.peek(); {
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			start := p.off
			var err error
			if section, sub, err = p.header(); err != nil {
				return nil, err
			}
			cf.blocks[len(cf.blocks)-1].end = start
			cf.blocks = append(cf.blocks, confBlock{start: start, section: section, sub: sub, header: true})
		case isAlpha(c): // git takes a key before any section too
			e, err := p.entry()
			if err != nil {
				return nil, err
			}
			e.section, e.sub = section, sub
			cf.entries = append(cf.entries, e)
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
	cf.blocks[len(cf.blocks)-1].end = len(text)
	return cf, nil
}

// get is the last value of a key (git's rule for a single-valued key).
func (cf *confFile) get(section, sub, key string) string {
	v := ""
	for _, e := range cf.entries {
		if e.section == section && e.sub == sub && e.key == key {
			v = e.value
		}
	}
	return v
}

// all is every value of a key, in file order.
func (cf *confFile) all(section, sub, key string) []string {
	var vs []string
	for _, e := range cf.entries {
		if e.section == section && e.sub == sub && e.key == key {
			vs = append(vs, e.value)
		}
	}
	return vs
}

// subsections lists the subsections of section, each once, in file order.
func (cf *confFile) subsections(section string) []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range cf.blocks {
		if b.header && b.section == section && b.sub != "" && !seen[b.sub] {
			seen[b.sub] = true
			out = append(out, b.sub)
		}
	}
	return out
}

// without is the file's text with every section for which drop holds
// removed, header and all lines to the next header, as `git config
// --remove-section` does.
func (cf *confFile) without(drop func(section, sub string) bool) string {
	var b strings.Builder
	for _, bl := range cf.blocks {
		if !bl.header || !drop(bl.section, bl.sub) {
			b.WriteString(cf.text[bl.start:bl.end])
		}
	}
	return b.String()
}

// appendSection adds a section with its keys at the end of text in the
// layout git writes: a header, then one tab-indented "key = value" a line.
func appendSection(text, section, sub string, kv ...[2]string) string {
	var b strings.Builder
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("[" + section)
	if sub != "" {
		b.WriteString(` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + `"`)
	}
	b.WriteString("]\n")
	for _, p := range kv {
		b.WriteString("\t" + p[0] + " = " + quoteConfValue(p[1]) + "\n")
	}
	return b.String()
}

// quoteConfValue writes a value so that git reads it back unchanged:
// escapes for '\', '"', newline, tab and backspace, and the whole in
// quotes when it has leading or trailing space or a comment character.
func quoteConfValue(v string) string {
	var b strings.Builder
	quote := v != strings.TrimSpace(v) || strings.ContainsAny(v, "#;")
	if quote {
		b.WriteByte('"')
	}
	for _, c := range []byte(v) {
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	if quote {
		b.WriteByte('"')
	}
	return b.String()
}

// errBadConfig is a config file git would refuse too.
var errBadConfig = errors.New("bad config line")

type confParser struct {
	s    string // what is left to read
	off  int    // offset of s in the file
	line int
}

func (p *confParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w %d: %s", errBadConfig, p.line, fmt.Sprintf(format, args...))
}

func (p *confParser) eof() bool  { return len(p.s) == 0 }
func (p *confParser) peek() byte { return p.s[0] }

func (p *confParser) next() byte {
	c := p.s[0]
	p.s, p.off = p.s[1:], p.off+1
	if c == '\n' {
		p.line++
	}
	return c
}

// skipSpace skips blanks, and newlines too when lines is set.
func (p *confParser) skipSpace(lines bool) {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r' || p.peek() == '\f' || p.peek() == '\v' || lines && p.peek() == '\n') {
		p.next()
	}
}

func (p *confParser) skipLine() {
	for !p.eof() && p.next() != '\n' {
	}
}

// header reads "[section]", "[section "sub"]" or the old "[section.sub]".
func (p *confParser) header() (section, sub string, err error) {
	p.next() // '['
	var name strings.Builder
	for !p.eof() && (isAlnum(p.peek()) || p.peek() == '-' || p.peek() == '.') {
		name.WriteByte(lower(p.next()))
	}
	section = name.String()
	if section == "" || p.eof() {
		return "", "", p.errorf("a section header without a name")
	}
	if p.peek() == ']' {
		p.next()
		if s, old, ok := strings.Cut(section, "."); ok {
			return s, old, nil // [section.sub]: git lower-cases sub too
		}
		return section, "", nil
	}
	p.skipSpace(false)
	if p.eof() || p.next() != '"' {
		return "", "", p.errorf("a malformed section header")
	}
	var b strings.Builder
	for {
		if p.eof() || p.peek() == '\n' {
			return "", "", p.errorf("an unterminated subsection name")
		}
		c := p.next()
		if c == '"' {
			break
		}
		if c == '\\' {
			if p.eof() || p.peek() == '\n' {
				return "", "", p.errorf("an unterminated subsection name")
			}
			c = p.next()
		}
		b.WriteByte(c)
	}
	if p.eof() || p.next() != ']' {
		return "", "", p.errorf("a malformed section header")
	}
	return section, b.String(), nil
}

// entry reads "key", "key = value" up to the end of its (continued) line.
func (p *confParser) entry() (confEntry, error) {
	var key strings.Builder
	for !p.eof() && (isAlnum(p.peek()) || p.peek() == '-') {
		key.WriteByte(lower(p.next()))
	}
	e := confEntry{key: key.String()}
	p.skipSpace(false)
	if p.eof() || p.peek() == '\n' || p.peek() == '#' || p.peek() == ';' {
		e.noValue = true
		p.skipLine()
		return e, nil
	}
	if p.next() != '=' {
		return e, p.errorf("key %q is not followed by '='", e.key)
	}
	v, err := p.value()
	e.value = v
	return e, err
}

// value decodes a value as git's parse_value does: quotes group, escapes
// are \\ \" \n \t \b and a backslash-newline continues the line, an
// unquoted run of blanks inside the value is one space a blank and at
// either end none, and '#' or ';' outside quotes starts a comment.
func (p *confParser) value() (string, error) {
	var b strings.Builder
	quoted, spaces := false, 0
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\n':
			if quoted {
				return "", p.errorf("an unterminated quote")
			}
			return b.String(), nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'):
			if b.Len() > 0 {
				spaces++
			}
			continue
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if p.eof() {
				return "", p.errorf("a backslash at the end of the file")
			}
			switch e := p.next(); e {
			case '\n':
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(e)
			default:
				return "", p.errorf("an unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", p.errorf("an unterminated quote")
	}
	return b.String(), nil
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
