// The story as markdown: titles, narration, and for each call the tool,
// its arguments and the salient fields of its real structured result.

package casebook

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// defaultShow is the result fields a tool's step shows unless its line
// says otherwise; a tool not named shows its whole result. Built on first
// use, not at every start of the programs that link the casebook.
var defaultShow = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"author_open":         {"workspace", "scope", "branch", "root_hash"},
		"author_materialize":  {"root_hash", "committed", "rendered"},
		"author_check":        {"errors", "warnings", "blocked", "findings"},
		"author_status":       {"staged", "blocked", "findings"},
		"author_diff":         {"rendered", "findings", "consequences"},
		"author_query":        {"answers"},
		"author_why":          {"grade", "active_paths", "blocking_defeats", "attack_pairs"},
		"author_branch":       {"action", "branch", "head", "branches"},
		"author_merge":        {"merged", "up_to_date", "conflicts", "findings", "root_hash"},
		"author_questions":    {"questions"},
		"author_entities":     {"entities"},
		"author_history":      {"grade", "added_in", "standing", "attacks"},
		"author_discard":      {"discarded", "findings"},
		"author_defeat":       {"root_hash", "committed"},
		"author_set_standing": {"root_hash", "committed"},
	}
})

// staging is the show of every op that stages one declaration.
var staging = []string{"rendered", "findings"}

// shows returns the fields a step shows.
func shows(st *Step) []string {
	switch {
	case st.Outcome != "ok":
		return []string{"error"}
	case st.Show != nil:
		return st.Show
	}
	if s, ok := defaultShow()[st.Tool]; ok {
		return s
	}
	if strings.HasPrefix(st.Tool, "author_record_decision") {
		return []string{"root_hash", "committed"}
	}
	if _, ok := st.Result["rendered"]; ok {
		return staging
	}
	keys := make([]string, 0, len(st.Result))
	for k := range st.Result {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Markdown writes the story. Long hex ids (commits, claims) are shortened
// to their first 12 digits; everything else is shown as the result holds it.
func (s *Story) Markdown(w io.Writer) error {
	var b strings.Builder
	n := 0
	for i := range s.Steps {
		st := &s.Steps[i]
		switch {
		case st.Title != "":
			fmt.Fprintf(&b, "# %s\n\n", st.Title)
		case st.Act != "":
			fmt.Fprintf(&b, "## %s\n\n", st.Act)
		case !st.IsCall():
			fmt.Fprintf(&b, "%s\n\n", st.Say)
		default:
			n++
			writeCall(&b, n, st)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCall writes one call: its number and narration, the call as a
// JSON block, and the salient result as a list.
func writeCall(b *strings.Builder, n int, st *Step) {
	fmt.Fprintf(b, "**%d.**", n)
	if st.Say != "" {
		fmt.Fprintf(b, " %s", st.Say)
	}
	fmt.Fprintf(b, "\n\n```json\n{\"name\":%s,\"arguments\":%s}\n```\n\n", compact(st.Tool), st.Sent)
	status := "ok"
	if st.Outcome != "ok" {
		status = "refused: `" + strings.TrimPrefix(st.Outcome, "error:") + "`"
	}
	if st.Mismatch {
		status += fmt.Sprintf(" — **the script expected %s**", st.Expect)
	}
	fmt.Fprintf(b, "- %s\n", status)
	for _, k := range shows(st) {
		v, ok := st.Result[k]
		if !ok {
			continue
		}
		writeField(b, st, k, v)
	}
	b.WriteString("\n")
}

// hexID matches a commit (40 digits) or object (64 digits) id; compiled
// on first use.
var hexID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b`) })

// short shortens every long hex id in s.
func short(s string) string {
	return hexID().ReplaceAllStringFunc(s, func(id string) string { return id[:12] })
}

// code is s as inline markdown code, ids shortened.
func code(s string) string {
	s = short(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// compact is v as one line of JSON.
func compact(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
