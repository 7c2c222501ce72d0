// This file tests CheckName and BranchRef, against a table and against
// real git check-ref-format.

package refs

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/internal/testenv"
)

// nameCases is the CheckName table. stricter marks names that git accepts
// and deloreis refuses on purpose.
var nameCases = []struct {
	name     string
	ok       bool
	stricter bool
}{
	{"refs/heads/main", true, false},
	{"refs/heads/feature/x", true, false},
	{"refs/tags/v1.0", true, false},
	{"refs/x", true, false},
	{"refs/heads/a-b_c+d=e,f", true, false},
	{"refs/heads/ünïcödé", true, false},
	{"refs/heads/HEAD", true, false},
	{"refs/heads/@", true, false},
	{"refs/heads/a@b", true, false},
	{"refs/heads/a.b", true, false},
	{"refs/heads/a.lockx", true, false},
	{"refs/heads/lock", true, false},
	{"refs/heads/{x}", true, false},
	{"refs/heads/a!b#c$d%e&f", true, false},
	{"refs/deloreis/lore/2024", true, false},
	{"refs/heads/" + strings.Repeat("a", 244), true, false}, // 255 bytes
	{"refs/heads/" + strings.Repeat("a", 245), false, true}, // 256 bytes
	{"refs/heads/\xff", false, true},                        // not UTF-8
	{"refs/heads/a\xc3", false, true},                       // truncated UTF-8
	{"heads/main", false, true},                             // not under refs/
	{"main", false, false},                                  // one level
	{"HEAD", false, false},                                  // one level
	{"@", false, false},
	{"", false, false},
	{"refs", false, false},
	{"refs/", false, false},
	{"/refs/heads/main", false, false},
	{"refs//heads", false, false},
	{"refs/heads/", false, false},
	{"refs/heads/main/", false, false},
	{"refs/heads/main.", false, false},
	{"refs/heads/.hidden", false, false},
	{"refs/heads/a/.b", false, false},
	{"refs/heads/.", false, false},
	{"refs/heads/..", false, false},
	{"refs/heads/../../config", false, false},
	{"../x", false, false},
	{"refs/../config", false, false},
	{"refs/heads/a..b", false, false},
	{"refs/heads/main.lock", false, false},
	{"refs/heads/main.lock/x", false, false},
	{"refs/heads/a@{b", false, false},
	{"refs/heads/@{u}", false, false},
	{"refs/heads/a b", false, false},
	{"refs/heads/a~1", false, false},
	{"refs/heads/a^", false, false},
	{"refs/heads/a:b", false, false},
	{"refs/heads/a?", false, false},
	{"refs/heads/a*", false, false},
	{"refs/heads/a[b", false, false},
	{"refs/heads/a\\b", false, false},
	{"refs/heads/a\x00b", false, false},
	{"refs/heads/a\nb", false, false},
	{"refs/heads/a\tb", false, false},
	{"refs/heads/a\x1fb", false, false},
	{"refs/heads/a\x7fb", false, false},
	{"refs/heads/a\rb", false, false},
	{"refs/heads/x.lock.lock", false, false},
	{"refs/heads/.lock", false, false},
	{"refs/heads/a/../b", false, false},
}

func TestCheckNameTable(t *testing.T) {
	for _, c := range nameCases {
		err := CheckName(c.name)
		if (err == nil) != c.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", c.name, err, c.ok)
			continue
		}
		if err == nil {
			continue
		}
		var ne *NameError
		if !errors.As(err, &ne) || ne.Name != c.name || !errors.Is(err, ErrInvalidName) {
			t.Errorf("CheckName(%q) = %#v, want a *NameError for it", c.name, err)
		}
		if !strings.HasPrefix(err.Error(), "refs: ") {
			t.Errorf("message %q lacks the prefix", err)
		}
	}
}

// TestCheckNameAgainstGit: every name we accept, git accepts; where git
// accepts a name we refuse, the table marks it as deliberately stricter.
func TestCheckNameAgainstGit(t *testing.T) {
	testenv.NeedTool(t, "git")
	checked := 0
	for _, c := range nameCases {
		if strings.IndexByte(c.name, 0) >= 0 {
			continue // cannot be an argument; refused by both for NUL
		}
		gitOK := exec.Command("git", "check-ref-format", c.name).Run() == nil
		ours := CheckName(c.name) == nil
		checked++
		switch {
		case ours && !gitOK:
			t.Errorf("%q: we accept, git refuses", c.name)
		case !ours && gitOK && !c.stricter:
			t.Errorf("%q: git accepts, we refuse, and the table does not say we are stricter", c.name)
		case !ours && !gitOK && c.stricter:
			t.Errorf("%q: marked stricter but git refuses it too", c.name)
		}
	}
	if checked < 55 {
		t.Fatalf("only %d names checked", checked)
	}
}

// FuzzCheckName checks that no accepted name, nor its lock file, leads out
// of <gitdir>/refs/, and that git's core rules hold for it.
func FuzzCheckName(f *testing.F) {
	for _, c := range nameCases {
		f.Add(c.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		gitDir := "/g"
		for _, p := range []string{name, name + ".lock"} {
			full := filepath.Join(gitDir, p)
			if !strings.HasPrefix(full, "/g/refs/") || full != gitDir+"/"+p {
				t.Fatalf("%q maps to %q", p, full)
			}
		}
		for _, c := range strings.Split(name, "/") {
			if c == "" || c[0] == '.' || strings.HasSuffix(c, ".lock") {
				t.Fatalf("%q has component %q", name, c)
			}
		}
		if strings.ContainsAny(name, " ~^:?*[\\\x00\x7f") || strings.Contains(name, "..") {
			t.Fatalf("%q accepted", name)
		}
	})
}

func TestBranchRef(t *testing.T) {
	for _, c := range []struct{ branch, want string }{
		{"main", "refs/heads/main"},
		{"feature/x", "refs/heads/feature/x"},
		{"", ""},
		{"-x", ""},
		{"HEAD", ""},
		{"../../config", ""},
		{"a..b", ""},
		{"main.lock", ""},
		{"a/", ""},
		{"a\x00", ""},
		{strings.Repeat("b", 245), ""},
	} {
		got, err := BranchRef(c.branch)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("BranchRef(%q) = %q, %v; want %q", c.branch, got, err, c.want)
		}
		var ne *NameError
		if err != nil && (!errors.As(err, &ne) || ne.Name != c.branch) {
			t.Errorf("BranchRef(%q) error %v is not a *NameError naming the branch", c.branch, err)
		}
	}
}
