// This file holds the unified diff tests: exact output for the shapes a
// hunk can take, and a property test that every diff applies back to its
// target and that Myers finds a shortest edit script.

package cli

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	cases := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"change in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"insert at the top", "a\n", "new\na\n", "@@ -1 +1,2 @@\n+new\n a\n"},
		{"into an empty file", "", "a\nb\n", "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to an empty file", "a\n", "", "@@ -1 +0,0 @@\n-a\n"},
		{"no newline at the end", "a\nb", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ny\n",
			"@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+y\n"},
		{"close changes share a hunk", "1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n",
			"@@ -1,8 +1,8 @@\n-1\n+x\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+y\n"},
	}
	for _, tc := range cases {
		got := string(unifiedDiff("f.orig", "f", []byte(tc.a), []byte(tc.b)))
		want := ""
		if tc.want != "" {
			want = "diff f.orig f\n--- f.orig\n+++ f\n" + tc.want
		}
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
	}
}

// TestDiffApplies checks on random line lists that each diff applies back
// to its target and that the Myers script is as short as the longest
// common subsequence allows.
func TestDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5^0x9e3779b97f4a7c15))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e"}
	random := func() string {
		var b strings.Builder
		for n := r.IntN(14); n > 0; n-- {
			w := words[r.IntN(len(words))]
			if w == "e" && n > 1 {
				w = "e\n"
			}
			b.WriteString(w)
		}
		return b.String()
	}
	for i := 0; i < 3000; i++ {
		a, b := random(), random()
		d := unifiedDiff("x.orig", "x", []byte(a), []byte(b))
		got, err := applyDiff(a, string(d))
		if err != nil || got != b {
			t.Fatalf("diff of %q → %q does not apply (%v): got %q\n%s", a, b, err, got, d)
		}
		al, bl := splitLines(a), splitLines(b)
		changes := 0
		for _, e := range editScript(al, bl) {
			if e.op != opEqual {
				changes++
			}
		}
		if want := len(al) + len(bl) - 2*lcs(al, bl); changes != want {
			t.Fatalf("%q → %q: %d changes, shortest is %d", a, b, changes, want)
		}
	}
}

// TestDiffLarge checks the fallback past maxEditDistance: the diff is not
// shortest but still applies.
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 3*maxEditDistance; i++ {
		a.WriteString("a" + strconv.Itoa(i) + "\n")
		b.WriteString("b" + strconv.Itoa(i) + "\n")
	}
	d := unifiedDiff("x.orig", "x", []byte(a.String()), []byte(b.String()))
	if got, err := applyDiff(a.String(), string(d)); err != nil || got != b.String() {
		t.Fatalf("large diff does not apply: %v", err)
	}
}

// lcs returns the length of the longest common subsequence of a and b.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// applyDiff applies a unified diff to a, as patch would.
func applyDiff(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	src := splitLines(a)
	lines := strings.SplitAfter(diff, "\n")
	var out strings.Builder
	next := 0 // the next line of src not yet copied
	for i := 3; i < len(lines) && lines[i] != ""; {
		h := lines[i]
		oldStart, oldLen, err := scanHunk(h)
		if err != nil {
			return "", err
		}
		if oldLen == 0 {
			oldStart++
		}
		for ; next < oldStart-1; next++ {
			out.WriteString(src[next])
		}
		for i++; i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
				body = strings.TrimSuffix(body, "\n")
			}
			switch l[0] {
			case ' ':
				out.WriteString(body)
				next++
			case '-':
				next++
			case '+':
				out.WriteString(body)
			case '\\':
				// The marker of the line before: already applied.
			}
		}
	}
	for ; next < len(src); next++ {
		out.WriteString(src[next])
	}
	return out.String(), nil
}

// scanHunk reads the old range of a hunk header.
func scanHunk(h string) (start, n int, err error) {
	f := strings.Fields(h)
	s, l, ok := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
	if start, err = strconv.Atoi(s); err != nil || !ok {
		return start, 1, err
	}
	n, err = strconv.Atoi(l)
	return start, n, err
}
