package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeIsOneUseCase: `deloreis merge` and the op author.merge are one
// use case. Over two identical copies of a project whose branch corbenic
// answers a question main answers otherwise, the command (exit 1, its
// --format json report) and the op over `deloreis serve` (ok, merged false)
// both refuse with the same report, and neither writes anything.
func TestMergeIsOneUseCase(t *testing.T) {
	work := t.TempDir()
	orig := filepath.Join(work, "orig")
	grailHistory(t, work, orig)
	before := mergeState(t, orig)
	if !strings.Contains(before, "refs/heads/corbenic ") || !strings.Contains(before, "refs/heads/main ") {
		t.Fatalf("the project lacks its branches:\n%s", before)
	}
	main := wpGit(t, "--git-dir", filepath.Join(orig, ".lore"), "rev-parse", "main")
	corbenic := wpGit(t, "--git-dir", filepath.Join(orig, ".lore"), "rev-parse", "corbenic")

	reports := make([]map[string]any, len(mergeSurfaces))
	for i, s := range mergeSurfaces {
		t.Run(s.name, func(t *testing.T) {
			dir := filepath.Join(work, fmt.Sprintf("copy%d", i+1))
			wpCopyTree(t, orig, dir)
			if got := mergeState(t, dir); got != before {
				t.Fatalf("the copy differs from the original:\n%s\nwant\n%s", got, before)
			}
			rep := s.run(t, dir)
			if rep["merged"] != false || rep["target_head"] != main || rep["source_head"] != corbenic || rep["root_hash"] != main {
				t.Fatalf("the report does not refuse the merge of %s into %s: %v", corbenic, main, rep)
			}
			conflicts, _ := rep["conflicts"].([]any)
			want := `[{"claims":[],"data":{"options":["corbenic","sarras"],"question":"where-the-grail-rests"},"kind":"exclusivity","message":"Question where-the-grail-rests has more than one option selected: corbenic, sarras.","scope":"camelot"}]`
			if got := mustJSON(t, conflicts); got != want {
				t.Fatalf("conflicts:\n%s\nwant\n%s", got, want)
			}
			if f, ok := rep["findings"].([]any); !ok || len(f) != 0 {
				t.Fatalf("findings: %v", rep["findings"])
			}
			if after := mergeState(t, dir); after != before {
				t.Fatalf("a refused merge wrote:\n%s\nbefore:\n%s", after, before)
			}
			delete(rep, "workspace_digest")
			reports[i] = rep
		})
	}
	if t.Failed() {
		return
	}
	if a, b := mustJSON(t, reports[0]), mustJSON(t, reports[1]); a != b {
		t.Fatalf("the command and the op report differently:\n%s: %s\n%s: %s", mergeSurfaces[0].name, a, mergeSurfaces[1].name, b)
	}

	// The text form: the conflict line on stdout, exit 1, nothing written.
	out, errs, code := wpRun(t, orig, "merge", "corbenic")
	if code != 1 || out != "conflict in camelot: exclusivity: Question where-the-grail-rests has more than one option selected: corbenic, sarras.\n" ||
		!strings.Contains(errs, "held back") {
		t.Fatalf("merge corbenic: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if after := mergeState(t, orig); after != before {
		t.Fatalf("a refused merge wrote:\n%s\nbefore:\n%s", after, before)
	}
}

// grailHistory makes, in orig, a project whose branch corbenic and main
// each select another option for where the grail rests.
func grailHistory(t *testing.T, work, orig string) {
	t.Helper()
	data, err := filepath.Abs("../../testdata/dli")
	if err != nil {
		t.Fatal(err)
	}
	// The history TestMergeReportsConflicts builds, as whole processes.
	wpMust(t, work, "--project", orig, "init", "--scope", "camelot")
	wpMust(t, orig, "import", filepath.Join(data, "grail-base.dli"), "--materialize")
	wpMust(t, orig, "branch", "corbenic")
	wpMust(t, orig, "import", filepath.Join(data, "grail-sarras.dli"), "--materialize")
	wpMust(t, orig, "import", filepath.Join(data, "grail-corbenic.dli"), "--branch", "corbenic", "--materialize")
}

// mergeState is what a merge must not change: every ref, main's head, the
// branch list, and the store's object files.
func mergeState(t *testing.T, dir string) string {
	t.Helper()
	gitDir := filepath.Join(dir, ".lore")
	var b strings.Builder
	b.WriteString("main " + wpGit(t, "--git-dir", gitDir, "rev-parse", "main") + "\n")
	b.WriteString(wpGit(t, "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)") + "\n")
	b.WriteString("branches:\n" + wpMust(t, dir, "branch"))
	filepath.WalkDir(filepath.Join(gitDir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(gitDir, p)
			b.WriteString(rel + "\n")
		}
		return nil
	})
	return b.String()
}

// mergeSurfaces are the two ways to ask for the merge of corbenic into
// main, each answering its report.
var mergeSurfaces = []struct {
	name string
	run  func(t *testing.T, dir string) map[string]any
}{
	{"deloreis merge --format json", func(t *testing.T, dir string) map[string]any {
		out, errs, code := wpRun(t, dir, "merge", "corbenic", "--format", "json")
		if code != 1 || !strings.Contains(errs, "held back") {
			t.Fatalf("exit %d (want 1), stderr %q, stdout:\n%s", code, errs, out)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not a JSON report: %v\n%s", err, out)
		}
		return rep
	}},
	{"author.merge over serve", func(t *testing.T, dir string) map[string]any {
		out, errs, code := wpRunStdin(t, dir,
			`{"dli":"2.0.0","id":"1","op":"author.open","params":{"scope":"camelot"}}`+"\n"+
				`{"dli":"2.0.0","id":"2","op":"author.merge","params":{"workspace":"ws-1","source":"corbenic"}}`+"\n", "serve")
		if code != 0 {
			t.Fatalf("serve: exit %d\n%s", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"ok":true`) {
			t.Fatalf("serve answered:\n%s", out)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(lines[1]), &rep); err != nil {
			t.Fatal(err)
		}
		if rep["id"] != "2" || rep["ok"] != true {
			t.Fatalf("author.merge: %s", lines[1])
		}
		delete(rep, "id")
		delete(rep, "ok")
		return rep
	}},
}
