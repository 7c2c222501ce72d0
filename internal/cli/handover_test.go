package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneProgram: the deloreis program is the whole command line — the
// servers and the git transports are linked into it (one binary, issue
// 31) — and, installed alone in a folder, it clones over file://, serves
// MCP and reads, as one program does.
func TestOneProgram(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/deloreis").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, p := range []string{
		"github.com/deloreis/deloreis/mcpserve",
		"github.com/deloreis/deloreis/lorestore/wire",
		"github.com/deloreis/deloreis/worker",
		"github.com/deloreis/deloreis/casebook",
		"github.com/deloreis/deloreis/dke/service",
		"github.com/deloreis/deloreis/internal/gcpolicy",
	} {
		if !deps[p] {
			t.Errorf("deloreis does not link %s", p)
		}
	}
	if _, err := os.Stat("../../cmd/deloreis-net"); err == nil {
		t.Error("cmd/deloreis-net is back: deloreis is one program")
	}

	alone := filepath.Join(t.TempDir(), "deloreis")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		c := exec.Command(alone, args...)
		out, err := c.CombinedOutput()
		return string(out), exitOf(err)
	}
	origin := filepath.Join(t.TempDir(), "origin")
	if out, code := run("init", "--store", origin); code != 0 {
		t.Fatalf("init: %d\n%s", code, out)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if out, code := run("--store", clone, "clone", "file://"+origin); code != 0 {
		t.Fatalf("clone: %d\n%s", code, out)
	}
	if out, code := run("mcp", "--tools", "bogus"); code != 2 || !strings.Contains(out, `--tools "bogus"`) {
		t.Errorf("mcp --tools bogus: exit %d, %q; want exit 2 naming the flag", code, out)
	}
	if out, code := run("--store", clone, "log", "-n", "1"); code != 0 {
		t.Errorf("log: %d\n%s", code, out)
	}
}

// exitOf is a finished command's exit status (0 when err is nil, -1
// when it did not run).
func exitOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
