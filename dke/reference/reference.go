// Package reference is the DKE Python language reference that the spec
// tool serves: the full text or a topic slice (header, types, verbs,
// statements, scripts), rendered for a keyword surface.
//
// The source of truth is the Markdown under text/, written for the eng
// surface and embedded here. Rendering for another surface translates every
// program and every quoted keyword mechanically (syntax.Translate) and
// fills the keyword tables from package keywords, so the reference can
// never disagree with the language. docs/dke/reference.md (eng) and
// docs/dke/reference.nob.md are generated from it: `go test
// ./dke/reference -update` rewrites them, and the test fails while they
// are stale. Edit text/, never docs/.
package reference

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/dke/keywords"
	"github.com/deloreis/deloreis/dke/syntax"
)

//go:embed text/*.md
var text embed.FS

// The topics spec serves.
const (
	Header     = "header"
	Types      = "types"
	Verbs      = "verbs"
	Statements = "statements"
	Scripts    = "scripts"
)

// topicFiles lists a topic's source files, in order; false for a topic
// there is not. (A function rather than a map: the programs that link the
// reference build nothing for it at start-up.)
func topicFiles(topic string) ([]string, bool) {
	switch topic {
	case Header:
		return []string{"01-header.md", "11-surfaces.md"}, true
	case Types:
		return []string{"02-types.md"}, true
	case Verbs:
		return []string{"04-verbs.md"}, true
	case Statements:
		return []string{"06-statements.md"}, true
	case Scripts:
		return []string{"08-scripts.md", "09-modules.md", "10-diagnostics.md"}, true
	}
	return nil, false
}

// fullFiles lists the files of the full reference, in order.
var fullFiles = []string{"00-intro.md", "01-header.md", "02-types.md", "04-verbs.md",
	"06-statements.md", "08-scripts.md", "09-modules.md", "10-diagnostics.md", "11-surfaces.md"}

// Topics returns the topic names, in the reference's order.
func Topics() []string { return []string{Header, Types, Verbs, Statements, Scripts} }

// Full returns the whole reference rendered for surface l.
func Full(l keywords.Lang) string { return render(fullFiles, l) }

// Topic returns one topic of the reference rendered for surface l.
func Topic(l keywords.Lang, topic string) (string, error) {
	files, ok := topicFiles(topic)
	if !ok {
		return "", fmt.Errorf("unknown topic %q (topics: %s)", topic, strings.Join(Topics(), ", "))
	}
	return render(files, l), nil
}

func render(files []string, l keywords.Lang) string {
	var parts []string
	for _, f := range files {
		b, err := text.ReadFile("text/" + f)
		if err != nil {
			panic(err) // the files are embedded: a missing one is a build error
		}
		parts = append(parts, renderText(string(b), l))
	}
	return strings.Join(parts, "\n")
}

// spanRE matches an inline code span; compiled on first use, not at
// every start of the programs that link the reference.
var spanRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]+`") })

// renderText translates the code of one file for surface l and fills its
// generated parts.
func renderText(src string, l keywords.Lang) string {
	var out []string
	fence := ""
	var block []string
	for _, line := range strings.SplitAfter(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = trimmed
			if strings.HasPrefix(fence, "```dke") {
				line = "```python\n"
			}
			out = append(out, line)
		case fence != "" && trimmed == "```":
			code := strings.Join(block, "")
			if strings.HasPrefix(fence, "```dke") {
				code = translate(code, l)
			}
			out = append(out, code, line)
			fence, block = "", nil
		case fence != "":
			block = append(block, line)
		default:
			out = append(out, spanRE().ReplaceAllStringFunc(line, func(s string) string {
				inner := s[1 : len(s)-1]
				if strings.HasPrefix(inner, "~") {
					return "`" + inner[1:] + "`"
				}
				if id, ok := keywords.Lookup(keywords.Eng, inner); ok {
					return "`" + keywords.Word(l, id) + "`" // one word names the word
				}
				return "`" + translate(inner, l) + "`"
			}))
		}
	}
	s := strings.Join(out, "")
	s = strings.ReplaceAll(s, "{{surface-note}}", surfaceNote(l))
	s = strings.ReplaceAll(s, "{{keyword-table}}", keywordTable())
	s = strings.ReplaceAll(s, "{{fixed-words}}", "  English on every surface. "+strings.Join(keywords.Fixed(), " "))
	return s
}

// translate renders eng code on surface l; code that does not translate
// is kept as written.
func translate(code string, l keywords.Lang) string {
	t, err := syntax.Translate(code, keywords.Eng, l)
	if err != nil {
		return code
	}
	return t
}

func surfaceNote(l keywords.Lang) string {
	return fmt.Sprintf("This reference is rendered for the `%s` surface: every program and every reserved word in it is written in `%s` words (§11); the prose is English.", l, l)
}

// groupName is a keyword group as the keyword table names it.
func groupName(g keywords.Group) string {
	switch g {
	case keywords.Statement:
		return "statement"
	case keywords.Operator:
		return "operator"
	case keywords.Literal:
		return "literal"
	case keywords.Verb:
		return "verb"
	case keywords.Type:
		return "type"
	case keywords.Collection:
		return "collection"
	case keywords.Decorator:
		return "decorator"
	case keywords.Handler:
		return "handler kind"
	case keywords.Argument:
		return "argument"
	}
	return ""
}

// keywordTable renders the keyword table as Markdown.
func keywordTable() string {
	var b strings.Builder
	b.WriteString("| eng | nob | reserved | group | note |\n| --- | --- | --- | --- | --- |\n")
	for _, e := range keywords.All() {
		res := "hard"
		if e.Reserve == keywords.Contextual {
			res = "contextual"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", e.Eng, e.Nob, res, groupName(e.Group), e.Why)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
