// This file holds a unified line diff for `deloreis fmt -d`: Myers' O(ND)
// shortest edit script over lines, with three lines of context per hunk, in
// the format of `diff -u` (GNU conventions for hunk ranges and for a last
// line without a newline). It moved here from dli with the fmt command.

package cli

import (
	"strconv"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// maxEditDistance bounds the Myers search. Past it, the differing middle
// of the two texts is reported as one deletion and one insertion: still a
// correct diff, not a minimal one, in bounded time and memory.
const maxEditDistance = 2000

// editOp is one line of an edit script.
type editOp uint8

const (
	opEqual editOp = iota
	opDelete
	opInsert
)

// edit is one step of an edit script: a line of a (delete, equal) or of b
// (insert).
type edit struct {
	op   editOp
	a, b int // line indexes in a and b before this step
}

// splitLines splits text into lines, each keeping its '\n'; the last line
// may lack one.
func splitLines(text string) []string {
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// unifiedDiff returns the unified diff that turns a into b, with the given
// file names in its header; it returns nil when a and b are equal.
func unifiedDiff(aName, bName string, a, b []byte) []byte {
	if string(a) == string(b) {
		return nil
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	edits := editScript(al, bl)
	var out strings.Builder
	out.WriteString("diff " + aName + " " + bName + "\n--- " + aName + "\n+++ " + bName + "\n")
	for i := 0; i < len(edits); {
		if edits[i].op == opEqual {
			i++
			continue
		}
		i = writeHunk(&out, edits, i, al, bl)
	}
	return []byte(out.String())
}

// writeHunk writes the hunk whose first change is edits[first], and
// returns the index after its last edit.
func writeHunk(out *strings.Builder, edits []edit, first int, al, bl []string) int {
	start := max(first-diffContext, 0)
	end, last := first, first
	for end < len(edits) {
		if edits[end].op != opEqual {
			last = end
		} else if end-last > 2*diffContext {
			break
		}
		end++
	}
	end = min(last+diffContext+1, len(edits))
	var na, nb int
	for _, e := range edits[start:end] {
		if e.op != opInsert {
			na++
		}
		if e.op != opDelete {
			nb++
		}
	}
	out.WriteString("@@ -" + hunkRange(edits[start].a, na) + " +" + hunkRange(edits[start].b, nb) + " @@\n")
	for _, e := range edits[start:end] {
		switch e.op {
		case opEqual:
			writeDiffLine(out, ' ', al[e.a])
		case opDelete:
			writeDiffLine(out, '-', al[e.a])
		case opInsert:
			writeDiffLine(out, '+', bl[e.b])
		}
	}
	return end
}

// hunkRange writes a hunk's range as diff -u does: "start,count", with
// ",1" left out, and an empty range named by the line before it.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// writeDiffLine writes one line of a hunk, marking a missing final newline.
func writeDiffLine(out *strings.Builder, mark byte, line string) {
	out.WriteByte(mark)
	out.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		out.WriteString("\n\\ No newline at end of file\n")
	}
}

// editScript returns a shortest edit script from a to b (or, past
// maxEditDistance, a correct longer one), covering every line of both.
func editScript(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	edits := make([]edit, 0, len(a)+len(b)-pre-suf)
	for i := 0; i < pre; i++ {
		edits = append(edits, edit{opEqual, i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb)
	if !ok {
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, edit{opDelete, i, 0})
		}
		for j := range mb {
			mid = append(mid, edit{opInsert, len(ma), j})
		}
	}
	for _, e := range mid {
		edits = append(edits, edit{e.op, e.a + pre, e.b + pre})
	}
	for i := 0; i < suf; i++ {
		edits = append(edits, edit{opEqual, len(a) - suf + i, len(b) - suf + i})
	}
	return edits
}

// myers returns the shortest edit script from a to b, or false when it is
// longer than maxEditDistance.
func myers(a, b []string) ([]edit, bool) {
	n, m := len(a), len(b)
	limit := min(n+m, maxEditDistance)
	off := limit + 1
	v := make([]int, 2*limit+3)
	trace := make([][]int, 0, 16)
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	return nil, false
}

// backtrack reads the edit script out of the Myers trace; trace[d] holds
// the furthest x on diagonals -d..d after step d.
func backtrack(trace [][]int, n, m int) []edit {
	rev := make([]edit, 0, n+m)
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, edit{opEqual, x, y})
		}
		if x == px {
			y--
			rev = append(rev, edit{opInsert, x, y})
		} else {
			x--
			rev = append(rev, edit{opDelete, x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, edit{opEqual, x, y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
