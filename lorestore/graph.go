// The text graph of `deloreis log --graph`: one column per line of history
// in flight, '*' for a commit, '\' where a merge opens a column and '/'
// where two columns meet again, in the manner of `git log --graph`.

package lorestore

import (
	"strings"
)

// RenderGraph lays out entries (newest first, as Log returns them) as
// graph lines. label gives the text lines of an entry; the first sits beside
// its '*', the rest below it.
func RenderGraph(entries []LogEntry, label func(LogEntry) []string) []string {
	var out []string
	var cols []Hash
	for _, e := range entries {
		idx := indexOf(cols, e.Commit)
		if idx < 0 {
			cols = append(cols, e.Commit)
			idx = len(cols) - 1
		}
		text := label(e)
		if len(text) == 0 {
			text = []string{""}
		}
		out = append(out, strings.TrimRight(rail(len(cols), idx, "*")+" "+text[0], " "))
		// Following lines of the label sit under the commit; the rails
		// show what stays open after it.
		next := nextColumns(cols, idx, e.Parents)
		for _, t := range text[1:] {
			out = append(out, strings.TrimRight(rail(max(len(cols), len(next)), -1, "")+" "+t, " "))
		}
		if len(e.Parents) > 1 && len(next) > len(cols) {
			out = append(out, rail(idx+1, -1, "")+`\`)
		}
		lines, compact := joins(next)
		out = append(out, lines...)
		cols = compact
	}
	return out
}

// rail draws n columns of '|', with mark in column at (none when at < 0).
func rail(n, at int, mark string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == at {
			b.WriteString(mark)
		} else {
			b.WriteByte('|')
		}
	}
	return b.String()
}

// nextColumns replaces the commit's column by its first parent and opens
// columns for the other parents, then merges columns that wait for the same
// commit.
func nextColumns(cols []Hash, idx int, parents []Hash) []Hash {
	next := make([]Hash, 0, len(cols)+len(parents))
	next = append(next, cols[:idx]...)
	if len(parents) > 0 {
		next = append(next, parents[0])
	}
	for _, p := range parents[min(1, len(parents)):] {
		if indexOf(next, p) < 0 && indexOf(cols[idx+1:], p) < 0 {
			next = append(next, p)
		}
	}
	next = append(next, cols[idx+1:]...)
	return next
}

// joins draws a '/' for each column that disappears because an earlier
// column already waits for the same commit, and compacts the columns.
func joins(next []Hash) ([]string, []Hash) {
	var lines []string
	for {
		dup := -1
		for j := range next {
			if indexOf(next[:j], next[j]) >= 0 {
				dup = j
				break
			}
		}
		if dup < 0 {
			break
		}
		var b strings.Builder
		for i := 0; i < dup; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('|')
		}
		b.WriteByte('/')
		for i := dup + 1; i < len(next); i++ {
			b.WriteString(" /")
		}
		lines = append(lines, b.String())
		next = append(next[:dup], next[dup+1:]...)
	}
	return lines, next
}

func indexOf(hs []Hash, h Hash) int {
	for i, x := range hs {
		if x == h {
			return i
		}
	}
	return -1
}
