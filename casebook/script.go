// Package casebook replays a scripted session of MCP authoring calls
// against a fresh lorestore and tells what happened as markdown: the
// narration the script gives, each call (tool and arguments) and the
// salient part of its real structured result. The Holmes casebook
// (docs/casebook/holmes.md) is its output over the script embedded at the
// module root (testdata/casebook).
//
// A script is JSON lines; blank lines and lines starting with "#" are
// comments. Each other line is one object of exactly one kind:
//
//	{"title": "…"}                        the story's title (first line)
//	{"act": "…"}                          a section heading
//	{"say": "…"}                          a paragraph of narration
//	{"tool": "author_open", "arguments": {…}, "expect": "ok" | "error:<code>",
//	 "say": "…", "show": ["field", …], "let": {"name": "path"}}
//
// A call's expect defaults to "ok"; a call whose outcome differs is
// counted as a mismatch. show picks which result fields the story shows
// (each tool has a default). let binds a name to a string the result
// holds, found by a path such as "committed[object.value=the-dagger].id";
// an argument string "$name" is then replaced by it, so that a script
// need not spell out content hashes.
package casebook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Line is one non-comment line of a script.
type Line struct {
	N         int               // 1-based line number in the script
	Title     string            `json:"title,omitempty"`
	Act       string            `json:"act,omitempty"`
	Say       string            `json:"say,omitempty"`
	Tool      string            `json:"tool,omitempty"`
	Arguments json.RawMessage   `json:"arguments,omitempty"`
	Expect    string            `json:"expect,omitempty"`
	Show      []string          `json:"show,omitempty"`
	Let       map[string]string `json:"let,omitempty"`
}

// IsCall reports whether the line is a tool call.
func (l *Line) IsCall() bool { return l.Tool != "" }

// Parse reads a script. Unknown fields, a line mixing kinds, a call
// without arguments that are an object and an expect that is neither "ok"
// nor "error:<code>" are refused with the line number.
func Parse(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		l, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("script line %d: %w", n, err)
		}
		l.N = n
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("script: no lines")
	}
	return out, nil
}

func parseLine(text string) (Line, error) {
	var l Line
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, err
	}
	if dec.More() {
		return l, fmt.Errorf("more than one JSON value")
	}
	kinds := 0
	for _, s := range []string{l.Title, l.Act, l.Tool} {
		if s != "" {
			kinds++
		}
	}
	if l.Say != "" && l.Tool == "" {
		kinds++
	}
	if kinds != 1 {
		return l, fmt.Errorf("want exactly one of title, act, say or tool")
	}
	if !l.IsCall() {
		if l.Arguments != nil || l.Expect != "" || l.Show != nil || l.Let != nil {
			return l, fmt.Errorf("arguments, expect, show and let belong to a tool call")
		}
		return l, nil
	}
	if a := bytes.TrimSpace(l.Arguments); len(a) == 0 || a[0] != '{' {
		return l, fmt.Errorf("%s: arguments must be a JSON object", l.Tool)
	}
	switch {
	case l.Expect == "":
		l.Expect = "ok"
	case l.Expect == "ok":
	case strings.HasPrefix(l.Expect, "error:") && len(l.Expect) > len("error:"):
	default:
		return l, fmt.Errorf("expect %q: want ok or error:<code>", l.Expect)
	}
	for name, path := range l.Let {
		if name == "" || path == "" {
			return l, fmt.Errorf("let: empty name or path")
		}
		if _, err := parsePath(path); err != nil {
			return l, fmt.Errorf("let %s: %w", name, err)
		}
	}
	return l, nil
}
