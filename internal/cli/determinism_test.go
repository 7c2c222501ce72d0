package cli

import (
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// replay runs a session file against a fresh server over dir whose
// commits are made at commitDate, and returns the transcript.
func replay(t *testing.T, file, dir, commitDate string) string {
	t.Helper()
	return runSession(t, file, startServerAt(t, commitDate, "--project", dir)) // stopped at cleanup
}

// commitID matches a full commit id (40 hex digits, not part of a longer
// object id or digest) and the 12-digit abbreviations messages use.
var commitID = regexp.MustCompile(`\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b`)

// TestDeterminism (issue 10, acceptance 3; DL-0103): every golden session,
// replayed on two fresh projects at the same commit time, answers byte
// for byte alike — digests, object ids, commit ids; at another commit time
// only the commit times and commit ids differ, and they do differ.
func TestDeterminism(t *testing.T) {
	sessions, err := filepath.Glob("testdata/serve/*.jsonl")
	if err != nil || len(sessions) < 8 {
		t.Fatalf("want every serve session, found %v (%v)", sessions, err)
	}
	builders := map[string]func(testing.TB) string{
		"spec": specProject, "ledger": specProject, "dli": specProject,
		"branch": branchProject, "declare": declareProject, "expert": expertProject,
	}
	for _, f := range sessions {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		build, ok := builders[strings.SplitN(name, "-", 2)[0]]
		if !ok {
			t.Fatalf("session %s has no project builder here", name)
		}
		t.Run(name, func(t *testing.T) {
			a := replay(t, f, build(t), "2026-12-01T10:00:00Z")
			b := replay(t, f, build(t), "2026-12-01T10:00:00Z")
			if a != b {
				t.Fatalf("two fresh projects answered differently:\n%s", firstDiff(a, b))
			}
			c := replay(t, f, build(t), "2027-03-04T05:06:07Z")
			ma := maskCommits(a, "2026-12-01T10:00:00Z")
			mc := maskCommits(c, "2027-03-04T05:06:07Z")
			if ma != mc {
				t.Fatalf("another commit time changed more than commit ids:\n%s", firstDiff(ma, mc))
			}
			if hasCommit(a) && a == c {
				t.Errorf("the commit time reached no commit id: commit times are not injected")
			}
		})
	}
}

// cursor matches an export cursor, which names its commit (DL-0144).
var cursor = regexp.MustCompile(`"(next_cursor|cursor)":"([A-Za-z0-9_-]+)"`)

// maskCommits replaces the commit time and every commit id of a
// transcript, inside export cursors too, by placeholders.
func maskCommits(transcript, commitDate string) string {
	transcript = cursor.ReplaceAllStringFunc(transcript, func(m string) string {
		sub := cursor.FindStringSubmatch(m)
		raw, err := base64.RawURLEncoding.DecodeString(sub[2])
		if err != nil {
			return m
		}
		return `"` + sub[1] + `":"decoded:` + string(raw) + `"`
	})
	return commitID.ReplaceAllString(strings.ReplaceAll(transcript, commitDate, "<time>"), "<commit>")
}

// hasCommit reports whether a transcript shows a commit a served op made.
func hasCommit(transcript string) bool {
	return strings.Contains(transcript, `"committed"`) || strings.Contains(transcript, `"merged":true`)
}

// firstDiff shows the first line where two transcripts differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	return "lengths differ"
}
