package testenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// Branches is what a git directory says of its branches, byte for byte:
// HEAD, packed-refs (absent is "no packed-refs") and every file under
// refs/, keyed by its path relative to gitDir with forward slashes. A
// refusal that moved a branch, made one, or left a ref lock behind
// changes it.
func Branches(t testing.TB, gitDir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	for _, name := range []string{"HEAD", "packed-refs"} {
		b, err := os.ReadFile(filepath.Join(gitDir, name))
		switch {
		case err == nil:
			st[name] = string(b)
		case errors.Is(err, fs.ErrNotExist) && name == "packed-refs":
		default:
			t.Fatalf("branch state of %s: %v", gitDir, err)
		}
	}
	root := filepath.Join(gitDir, "refs")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(gitDir, p)
		if err != nil {
			return err
		}
		st[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("branch state of %s: %v", gitDir, err)
	}
	return st
}

// BranchDiffs lists what differs between two Branches readings, sorted:
// "added x", "removed x", "changed x".
func BranchDiffs(before, after map[string]string) []string {
	var diffs []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if v != w {
			diffs = append(diffs, "changed "+k+": "+quoteShort(v)+" -> "+quoteShort(w))
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	sort.Strings(diffs)
	return diffs
}

// SameBranches fails the test (without stopping it) when after differs
// from before; what names the step for the message.
func SameBranches(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	if before == nil {
		t.Fatalf("%s: no branch state was read before", what)
	}
	for _, d := range BranchDiffs(before, after) {
		t.Errorf("%s moved the branches: %s", what, d)
	}
}

func quoteShort(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return strconv.Quote(s)
}
