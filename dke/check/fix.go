// Fixes: a diagnostic's fix replaces its line from its column to the end,
// so a fix for a span is the new text followed by the rest of the line.

package check

import (
	"strings"

	"github.com/deloreis/deloreis/dke/syntax"
)

// lineRest returns src from byte offset off to the end of its line.
func lineRest(src string, off int32) string {
	if int(off) > len(src) || off < 0 {
		return ""
	}
	rest := src[off:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSuffix(rest, "\r")
}

// replaceFrom is the fix that replaces a span starting at the diagnostic's
// position and ending at end with text.
func replaceFrom(src string, end syntax.Pos, text string) string {
	return text + lineRest(src, end.Off)
}

// spanFix is the fix that replaces [start, end) with text, for a
// diagnostic reported at start; "" when the span crosses a line.
func spanFix(src string, start, end syntax.Pos, text string) string {
	if start.Line != end.Line || text == "" {
		return ""
	}
	return replaceFrom(src, end, text)
}

// text returns the source of a node.
func (c *checker) text(n syntax.Node) string {
	s, e := n.Span()
	if s.Off < 0 || int(e.Off) > len(c.f.Src) || s.Off > e.Off {
		return ""
	}
	return c.f.Src[s.Off:e.Off]
}

// oneLine reports whether a node is on one line.
func oneLine(n syntax.Node) bool {
	s, e := n.Span()
	return s.Line == e.Line
}
