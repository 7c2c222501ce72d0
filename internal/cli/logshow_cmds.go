// The log and show commands: the lore history, and what one commit added
// and removed, rendered as canonical .dli declarations (or as JSON data).

package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

type logFlags struct {
	oneline, graph bool
	scope, op      string
	object         string
	format         string
	n              int
}

func newLogCmd(g *globals) *cobra.Command {
	f := &logFlags{}
	cmd := &cobra.Command{
		Use:   "log [revision | A..B | A...B]",
		Short: "Show the lore history (A..B: commits reachable from B and not from A; A...B: from either, not both)",
		Args:  cobra.MaximumNArgs(1),
		PreRunE: func(_ *cobra.Command, args []string) error {
			return f.validate(args)
		},
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			q := author.LogQuery{Scope: f.scope, Op: f.op, Limit: f.n, KnownScope: true}
			if len(args) == 1 {
				q.Rev = args[0]
			}
			if f.object != "" {
				q.Object, _ = objects.ParseID(f.object) // validated
			}
			entries, err := s.CommitLog(q)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(cmd.OutOrStdout()) // one write, not one a line
			if f.format == "json" {
				err = writeJSON(w, logJSON(entries))
			} else {
				err = printLog(w, entries, f)
			}
			return errors.Join(err, w.Flush())
		}),
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.oneline, "oneline", false, "one line per commit")
	fl.BoolVar(&f.graph, "graph", false, "draw the branch and merge graph")
	fl.StringVar(&f.scope, "scope", "", "only commits that change this scope")
	fl.StringVar(&f.op, "op", "", "only commits whose Lore-Op is this")
	fl.StringVar(&f.object, "object", "", "only the commit that added this object id")
	fl.IntVarP(&f.n, "max-count", "n", 0, "at most this many commits (0: all)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	return cmd
}

// validate refuses flag values and arguments that can never be right.
func (f *logFlags) validate(args []string) error {
	switch {
	case f.n < 0:
		return usageError{fmt.Sprintf("-n %d: the count must be 0 (all) or more", f.n)}
	case len(args) == 1 && args[0] == "":
		return usageError{"the revision is empty"}
	case f.scope != "" && !objects.ValidID(f.scope):
		return usageError{fmt.Sprintf("--scope %q is not a scope id", f.scope)}
	}
	if f.object != "" {
		id, err := objects.ParseID(f.object)
		if err != nil || id == (objects.ID{}) {
			return usageError{fmt.Sprintf("--object %q is not an object id (64 hex digits, not all zero)", f.object)}
		}
	}
	return checkFormat(f.format, "text", "json")
}

// checkFormat refuses a --format value that is not one of the allowed.
func checkFormat(format string, allowed ...string) error {
	if !slices.Contains(allowed, format) {
		return usageError{fmt.Sprintf("--format %q: want %s", format, strings.Join(allowed, " or "))}
	}
	return nil
}

// commitJSON is a commit as data.
type commitJSON struct {
	Commit   string        `json:"commit" desc:"the commit id, 40 hex digits"`
	Parents  []string      `json:"parents" desc:"the parent commit ids, first parent first; [] for the root commit"`
	Author   signatureJSON `json:"author" desc:"who signed the commit, and when"`
	Summary  string        `json:"summary" desc:"the first line of the commit message"`
	Trailers []trailerJSON `json:"trailers,omitempty" desc:"the message's trailers (Lore-Op, Lore-Scope, …) in order; absent when it has none"`
	Changes  []changeJSON  `json:"changes,omitempty" desc:"show only: the lore objects the commit added or removed against its first parent; absent when none"`
	DKE      []dkeJSON     `json:"dke_changes,omitempty" desc:"show only: the DKE files the commit changed; absent when none"`
}

// dkeJSON is one file of the dke/ namespace a commit changed.
type dkeJSON struct {
	Store    string `json:"store" desc:"the DKE store id"`
	Module   string `json:"module,omitempty" desc:"the module the file holds; absent for a claim"`
	Kind     string `json:"kind,omitempty" desc:"the claim's kind; absent for a module"`
	ID       string `json:"id,omitempty" desc:"the claim file's object id; absent for a module"`
	Removed  bool   `json:"removed" desc:"true when the commit removed the file"`
	Replaced bool   `json:"replaced,omitempty" desc:"true when the file was replaced by a new version; absent otherwise"`
}

type signatureJSON struct {
	Name  string `json:"name" desc:"the signer's name"`
	Email string `json:"email" desc:"the signer's email"`
	When  string `json:"when" desc:"the signature's time, RFC 3339"`
}

type trailerJSON struct {
	Key   string `json:"key" desc:"the trailer's key"`
	Value string `json:"value" desc:"the trailer's value"`
}

// changeJSON is one object a commit added or removed, with the object.
type changeJSON struct {
	Scope   string          `json:"scope" desc:"the scope the object is filed under"`
	Kind    string          `json:"kind" desc:"the object's folder: claims, decisions, …"`
	ID      string          `json:"id" desc:"the object's id, 64 hex digits"`
	Removed bool            `json:"removed" desc:"true when the commit removed the object, false when it added it"`
	Object  json.RawMessage `json:"object" desc:"the object itself, as stored (its canonical JSON)"`
}

func entryJSON(e author.LogEntry) commitJSON {
	c := commitJSON{
		Commit:  e.Commit.String(),
		Parents: []string{},
		Author:  signatureJSON{e.Author.Name, e.Author.Email, e.Author.When.Format(time.RFC3339)},
		Summary: e.Message.Summary,
	}
	for _, p := range e.Parents {
		c.Parents = append(c.Parents, p.String())
	}
	for _, t := range e.Message.Trailers {
		c.Trailers = append(c.Trailers, trailerJSON{t.Key, t.Value})
	}
	return c
}

func logJSON(entries []author.LogEntry) []commitJSON {
	out := make([]commitJSON, 0, len(entries))
	for _, e := range entries {
		out = append(out, entryJSON(e))
	}
	return out
}

// printLog prints commits as log does: in full, or one line each, as a
// graph of branches and merges or one after another.
func printLog(w io.Writer, entries []author.LogEntry, f *logFlags) error {
	label := func(e author.LogEntry) []string {
		if f.oneline {
			return []string{e.Commit.String()[:7] + " " + e.Message.Summary}
		}
		return fullEntry(e)
	}
	var lines []string
	if f.graph {
		lines = author.HistoryGraph(entries, label)
	} else {
		for i, e := range entries {
			l := label(e)
			if !f.oneline && i < len(entries)-1 {
				l = append(l, "")
			}
			lines = append(lines, l...)
		}
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// fullEntry renders a commit the way git log does, trailers included.
func fullEntry(e author.LogEntry) []string {
	ls := []string{"commit " + e.Commit.String()}
	if len(e.Parents) > 1 {
		var ps []string
		for _, p := range e.Parents {
			ps = append(ps, p.String()[:7])
		}
		ls = append(ls, "Merge: "+strings.Join(ps, " "))
	}
	ls = append(ls,
		fmt.Sprintf("Author: %s <%s>", e.Author.Name, e.Author.Email),
		"Date:   "+e.Author.When.Format("Mon Jan 2 15:04:05 2006 -0700"),
		"",
		"    "+e.Message.Summary,
	)
	if len(e.Message.Trailers) > 0 {
		ls = append(ls, "")
		for _, t := range e.Message.Trailers {
			ls = append(ls, "    "+t.Key+": "+t.Value)
		}
	}
	return ls
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// showFlags are the flags of show.
type showFlags struct {
	nameOnly bool
	format   string
}

func newShowCmd(g *globals) *cobra.Command {
	f := &showFlags{}
	cmd := &cobra.Command{
		Use:   "show [commit|object-id]",
		Short: "Show a commit (default HEAD) and the declarations it added (+) and removed (-), or one stored object",
		Args:  cobra.MaximumNArgs(1),
		PreRunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "" {
				return usageError{"the revision is empty"}
			}
			return checkFormat(f.format, "text", "json")
		},
		RunE: g.withService(func(cmd *cobra.Command, args []string, s *author.Service) error {
			rev := "HEAD" // as git show
			if len(args) == 1 {
				rev = args[0]
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			err := showRev(w, s, rev, f)
			return errors.Join(err, w.Flush())
		}),
	}
	cmd.Flags().BoolVar(&f.nameOnly, "name-only", false, "list the objects as scope/kind/id instead of declarations")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text or json (the objects as data)")
	return cmd
}

// showRev prints the commit rev names, or else the object it names: a
// whole object id, or the leading digits of one when no commit answers
// to them.
func showRev(w io.Writer, s *author.Service, rev string, f *showFlags) error {
	if id, err := objects.ParseID(rev); err == nil {
		found, err := s.FindObjects("", id.String())
		if err != nil {
			return err
		}
		if len(found.Hits) == 0 {
			return fmt.Errorf("%w: object %s at %s", author.ErrNotFound, id, found.Commit[:12])
		}
		return showObject(w, found, f)
	}
	err := showCommit(w, s, rev, f)
	var re *author.RevisionError
	if errors.As(err, &re) {
		// Not a commit: perhaps an abbreviated object id.
		if found, ok, perr := expandObject(s, rev); perr != nil {
			return perr
		} else if ok {
			return showObject(w, found, f)
		}
	}
	return err
}

// expandObject looks an abbreviated object id up in every scope at HEAD:
// ok when exactly one object begins with it (found's first hit), an error
// naming the candidates when several do.
func expandObject(s *author.Service, prefix string) (author.ObjectHits, bool, error) {
	if len(prefix) < 4 || strings.Trim(strings.ToLower(prefix), "0123456789abcdef") != "" {
		return author.ObjectHits{}, false, nil
	}
	found, err := s.FindObjects("", prefix)
	if err != nil {
		return author.ObjectHits{}, false, err
	}
	var ids []objects.ID
	for _, h := range found.Hits {
		if !slices.Contains(ids, h.ID) {
			ids = append(ids, h.ID)
		}
	}
	switch len(ids) {
	case 0:
		return author.ObjectHits{}, false, nil
	case 1:
		return found, true, nil
	}
	shown := make([]string, 0, 4)
	for _, id := range ids[:min(4, len(ids))] {
		shown = append(shown, id.String()[:16])
	}
	return author.ObjectHits{}, false, fmt.Errorf("%q is ambiguous: %d objects begin with it (%s); give more digits", prefix, len(ids), strings.Join(shown, ", "))
}

// showObject prints the first object found: its id, scope and type, and
// its canonical JSON.
func showObject(w io.Writer, found author.ObjectHits, f *showFlags) error {
	o, err := found.Read(0)
	if err != nil {
		return err
	}
	if f.format == "json" {
		return writeJSON(w, o) // dli.object's result
	}
	_, err = fmt.Fprintf(w, "object %s\nscope  %s\ntype   %s\n\n%s\n", o.ObjectID, o.Scope, o.Type, o.Object)
	return err
}

func showCommit(w io.Writer, s *author.Service, rev string, f *showFlags) error {
	c, err := s.ShowCommit(rev)
	if err != nil {
		return err
	}
	dke, err := c.DKEChanges()
	if err != nil {
		return err
	}
	if f.format == "json" {
		return showJSON(w, c, dke)
	}
	for _, l := range fullEntry(c.Entry) {
		fmt.Fprintln(w, l)
	}
	// The changes stream from the diff as they are found and rendered:
	// the blank line before them waits for the first.
	started := false
	start := func() {
		if !started {
			started = true
			fmt.Fprintln(w)
		}
	}
	scope := ""
	var line []byte
	err = author.ShowChanges(c, !f.nameOnly, func(ch author.ObjectChange, o objects.Object) ([]byte, error) {
		if f.nameOnly {
			return nil, nil
		}
		return signedDecl(ch, o), nil
	}, func(ch author.ObjectChange, decls []byte) error {
		start()
		if f.nameOnly {
			line = append(append(append(line[:0], signOf(ch.Removed)...), ' '), ch.Scope...)
			line = hex.AppendEncode(append(append(append(line, '/'), ch.Kind...), '/'), ch.ID[:])
			_, err := w.Write(append(line, '\n'))
			return err
		}
		if ch.Scope != scope {
			scope = ch.Scope
			fmt.Fprintf(w, "  scope %s\n", scope)
		}
		_, err := w.Write(decls)
		return err
	})
	if err != nil {
		return err
	}
	if len(dke) > 0 {
		start()
	}
	showDKE(w, dke)
	return nil
}

// signedDecl renders the declaration of a changed object, each line
// after the change's sign.
func signedDecl(c author.ObjectChange, o objects.Object) []byte {
	decl := dli.AppendDecl(make([]byte, 0, 256), o)
	out := make([]byte, 0, len(decl)+2*bytes.Count(decl, []byte{'\n'}))
	for len(decl) > 0 {
		i := bytes.IndexByte(decl, '\n') + 1
		if i == 0 { // AppendDecl ends every line; never loop on one that is not
			i = len(decl)
		}
		out = append(append(append(out, signOf(c.Removed)...), ' '), decl[:i]...)
		decl = decl[i:]
	}
	return out
}

// signOf is the sign of a change: - for a removal, + for an addition.
func signOf(removed bool) string {
	if removed {
		return "-"
	}
	return "+"
}

// showJSON prints the commit as writeJSON prints a commitJSON, its
// changes streamed into the "changes" array as they are read, each
// encoded on its own (by several goroutines) in the array's indentation.
func showJSON(w io.Writer, sc *author.ShownCommit, dke []author.DKEChange) error {
	c := entryJSON(sc.Entry)
	for _, d := range dke {
		j := dkeJSON{Store: d.Store, Module: d.Module, Kind: d.Kind, Removed: d.Removed, Replaced: d.Replaced}
		if d.Module == "" {
			j.ID = d.ID.String()
		}
		c.DKE = append(c.DKE, j)
	}
	var whole bytes.Buffer
	if err := writeJSON(&whole, c); err != nil {
		return err
	}
	// "changes" goes before "dke_changes", else last: top-level keys are
	// the only text indented by two spaces after a newline.
	head := whole.Bytes()
	cut := bytes.Index(head, []byte("\n  \"dke_changes\": "))
	if cut < 0 {
		cut = bytes.LastIndex(head, []byte("\n}"))
	}
	if c.DKE != nil {
		cut-- // the comma after the value before
	}
	head, tail := head[:cut], head[cut:]
	if _, err := w.Write(head); err != nil {
		return err
	}
	const open, next = ",\n  \"changes\": [\n    ", ",\n    "
	sep := open
	err := author.ShowChanges(sc, true, func(ch author.ObjectChange, o objects.Object) ([]byte, error) {
		data, err := objects.Canonical(o)
		if err != nil {
			return nil, err
		}
		return appendChangeJSON(nil, ch, data)
	}, func(_ author.ObjectChange, data []byte) error {
		_, err := io.WriteString(w, sep)
		sep = next
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	})
	if err == nil && sep == next {
		_, err = io.WriteString(w, "\n  ]")
	}
	if err == nil {
		_, err = w.Write(tail)
	}
	return err
}

// showDKE lists the DKE modules and claims a commit changed, by path
// under dke/: + added, - removed, ~ a module whose content changed.
func showDKE(w io.Writer, changes []author.DKEChange) {
	for _, d := range changes {
		sign := "+"
		switch {
		case d.Removed:
			sign = "-"
		case d.Replaced:
			sign = "~"
		}
		if d.Module != "" {
			fmt.Fprintf(w, "%s dke/%s/modules/%s\n", sign, d.Store, d.Module)
		} else {
			fmt.Fprintf(w, "%s dke/%s/claims/%s/%s\n", sign, d.Store, d.Kind, d.ID)
		}
	}
}

// appendChangeJSON appends a change as writeJSON prints a changeJSON at
// the depth of the changes array (its first line unindented), without the
// reflection and the two passes of encoding/json: an object of canonical
// JSON only needs its indentation added.
func appendChangeJSON(b []byte, c author.ObjectChange, object []byte) ([]byte, error) {
	const in = "\n      "
	b = append(b, "{"+in+`"scope": `...)
	b = appendJSONString(b, c.Scope)
	b = append(b, ","+in+`"kind": `...)
	b = appendJSONString(b, c.Kind)
	b = append(append(append(b, ","+in+`"id": "`...), c.ID.String()...), `",`+in+`"removed": `...)
	b = strconv.AppendBool(b, c.Removed)
	b = append(b, ","+in+`"object": `...)
	b, err := appendIndented(b, object, in)
	return append(b, "\n    }"...), err
}

// appendJSONString appends s as encoding/json quotes it (without HTML
// escaping), taking the short way when nothing needs escaping.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			var q bytes.Buffer
			enc := json.NewEncoder(&q)
			enc.SetEscapeHTML(false)
			enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendIndented appends compact JSON as json.Indent lays it out, with nl
// (a newline and the prefix) before each line after the first and two
// spaces a level: an empty object or array stays {} or [].
func appendIndented(b, src []byte, nl string) ([]byte, error) {
	depth, open := 0, false
	newline := func() {
		b = append(b, nl...)
		for range depth {
			b = append(b, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			newline()
		}
		switch c {
		case '"':
			end := i + 1
			for ; end < len(src) && src[end] != '"'; end++ {
				if src[end] == '\\' {
					end++
				}
			}
			if end >= len(src) {
				return b, errors.New("show: unterminated string in an object's JSON")
			}
			b = append(b, src[i:end+1]...)
			i = end
		case '{', '[':
			b = append(b, c)
			depth++
			open = true
		case '}', ']':
			depth--
			if open {
				open = false
			} else {
				newline()
			}
			b = append(b, c)
		case ',':
			b = append(b, c)
			newline()
		case ':':
			b = append(b, ':', ' ')
		default:
			b = append(b, c)
		}
	}
	return b, nil
}
