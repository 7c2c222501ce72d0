// Fsck and tolerance of unusable packs: a broken pack file is skipped with
// a warning (git log works beside it, so must we), and Fsck reports it,
// along with malformed refs and corrupt content on a branch.

package lorestore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// packFiles returns the base paths of the store's packs.
func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	idx, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.idx"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("no packs in %s (%v)", dir, err)
	}
	for i := range idx {
		idx[i] = strings.TrimSuffix(idx[i], ".idx")
	}
	return idx
}

func TestFsck(t *testing.T) {
	const stray = "pack-0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name     string
		spoil    func(t *testing.T, s *Store, dir string)
		warn     bool   // opening warns of a skipped pack
		readable bool   // log of main still works
		want     string // a problem names this ("" = clean)
	}{
		{"clean", func(*testing.T, *Store, string) {}, false, true, ""},
		{"empty-idx", func(t *testing.T, _ *Store, dir string) {
			os.WriteFile(filepath.Join(dir, "objects", "pack", stray+".idx"), nil, 0o644)
		}, true, true, stray + ".idx"},
		{"empty-pack", func(t *testing.T, _ *Store, dir string) {
			base := packFiles(t, dir)[0]
			data, _ := os.ReadFile(base + ".idx")
			os.WriteFile(filepath.Join(dir, "objects", "pack", stray+".idx"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "objects", "pack", stray+".pack"), nil, 0o644)
		}, true, true, stray + ".pack"},
		{"truncated-pack", func(t *testing.T, _ *Store, dir string) {
			for _, base := range packFiles(t, dir) {
				data, _ := os.ReadFile(base + ".pack")
				os.WriteFile(base+".pack", data[:len(data)/2], 0o644)
			}
		}, true, false, ".pack"},
		{"garbage-ref", func(t *testing.T, _ *Store, dir string) {
			os.WriteFile(filepath.Join(dir, "refs", "heads", "junk"), []byte("garbage\n"), 0o644)
		}, false, true, "refs/heads/junk"},
		{"ref-to-nothing", func(t *testing.T, _ *Store, dir string) {
			os.WriteFile(filepath.Join(dir, "refs", "heads", "ghost"), []byte(strings.Repeat("ab", 20)+"\n"), 0o644)
		}, false, true, "refs/heads/ghost"},
		{"corrupt-branch", func(t *testing.T, _ *Store, dir string) {
			git(t, dir, "--git-dir", dir, "branch", "side", "main")
			rewriteBranch(t, dir, "side", map[string][]byte{claimPath(t, "camelot", 1): []byte(`{"broken":true}`)})
		}, false, true, claimPath(t, "camelot", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			commitFacts(t, s, "camelot", 0, 4)
			s.Close()
			tc.spoil(t, s, dir)
			var warnings bytes.Buffer
			s, err := Open(dir, Options{Warnings: &warnings})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if got := warnings.Len() > 0; got != tc.warn {
				t.Fatalf("warned %v, want %v: %q", got, tc.warn, warnings.String())
			}
			if _, err := s.Log(LogOptions{From: "main"}); (err == nil) != tc.readable {
				t.Fatalf("log of main: %v", err)
			}
			// Listing branches works beside a broken ref, as git's does.
			if bs, err := s.Branches(); err != nil || len(bs) == 0 {
				t.Fatalf("branches: %v, %v", bs, err)
			}
			problems, err := s.Fsck()
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(problems) != 0 {
					t.Fatalf("clean store: %v", problems)
				}
				return
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p.String(), tc.want)
			}
			if !found {
				t.Fatalf("problems %v name no %s", problems, tc.want)
			}
		})
	}
}
