// Commit messages: a one-line lore summary and Lore-* trailers, so that
// `git log` reads as lore history and `deloreis log` can filter on them.

package lorestore

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Trailer keys the lorestore writes. Other keys may be added by callers.
const (
	TrailerOp        = "Lore-Op"
	TrailerScope     = "Lore-Scope"
	TrailerDecision  = "Lore-Decision"
	TrailerWorkspace = "Lore-Workspace"
)

// maxSummary bounds the summary line; git shows it in one line.
const maxSummary = 200

// Trailer is one "Key: value" line of a commit's trailer block.
type Trailer struct {
	Key   string
	Value string
}

// Message is what a lore commit says about itself.
type Message struct {
	Summary  string    // one line, e.g. "materialize camelot: 2 facts, 1 relation"
	Trailers []Trailer // written in order after a blank line
}

// NewMessage builds a message with the Lore-Op trailer and, when scope is
// not empty, the Lore-Scope trailer.
func NewMessage(summary, op, scope string) Message {
	m := Message{Summary: summary, Trailers: []Trailer{{TrailerOp, op}}}
	if scope != "" {
		m.Trailers = append(m.Trailers, Trailer{TrailerScope, scope})
	}
	return m
}

// Get returns the first value of a trailer key, or "".
func (m Message) Get(key string) string {
	for _, t := range m.Trailers {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// All returns every value of a trailer key, in order.
func (m Message) All(key string) []string {
	var vs []string
	for _, t := range m.Trailers {
		if t.Key == key {
			vs = append(vs, t.Value)
		}
	}
	return vs
}

// check refuses a message that would not read back as it was written.
func (m Message) check() error {
	if m.Summary == "" {
		return &MessageError{Field: "summary", Reason: "is empty"}
	}
	if len(m.Summary) > maxSummary {
		return &MessageError{Field: "summary", Reason: fmt.Sprintf("is longer than %d bytes", maxSummary)}
	}
	if err := checkLine("summary", m.Summary); err != nil {
		return err
	}
	if strings.TrimSpace(m.Summary) != m.Summary {
		return &MessageError{Field: "summary", Reason: "has leading or trailing space"}
	}
	for _, t := range m.Trailers {
		if !validTrailerKey(t.Key) {
			return &MessageError{Field: "trailer " + t.Key, Reason: "key must be letters, digits and '-'"}
		}
		if t.Value == "" || strings.TrimSpace(t.Value) != t.Value {
			return &MessageError{Field: "trailer " + t.Key, Reason: "value is empty or padded with space"}
		}
		if err := checkLine("trailer "+t.Key, t.Value); err != nil {
			return err
		}
	}
	return nil
}

func checkLine(field, s string) error {
	if !utf8.ValidString(s) {
		return &MessageError{Field: field, Reason: "is not valid UTF-8"}
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return &MessageError{Field: field, Reason: "holds a control character"}
		}
	}
	return nil
}

func validTrailerKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

// encode renders the message as git commit text.
func (m Message) encode() string {
	var b strings.Builder
	b.WriteString(m.Summary)
	b.WriteByte('\n')
	if len(m.Trailers) > 0 {
		b.WriteByte('\n')
		for _, t := range m.Trailers {
			b.WriteString(t.Key)
			b.WriteString(": ")
			b.WriteString(t.Value)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// parseMessage reads a commit message back: the first line is the summary,
// and the last paragraph, when every line of it is "Key: value", is the
// trailer block. Messages written by other tools parse too; they simply have
// no Lore-* trailers.
func parseMessage(text string) Message {
	text = strings.TrimRight(text, "\n")
	summary, rest, _ := strings.Cut(text, "\n")
	m := Message{Summary: strings.TrimSpace(summary)}
	if rest == "" {
		return m
	}
	paras := strings.Split(rest, "\n\n")
	last := strings.TrimSpace(paras[len(paras)-1])
	var ts []Trailer
	for line := range strings.SplitSeq(last, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || !validTrailerKey(k) {
			return m
		}
		ts = append(ts, Trailer{Key: k, Value: strings.TrimSpace(v)})
	}
	m.Trailers = ts
	return m
}
