package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeloreisLinksNoNetwork holds the split of DL-0330 and DL-0350: the
// deloreis program links none of the packages whose start-up made every
// command slow (the MCP SDK, net/http and TLS, ssh, OpenPGP, go-git's
// transports, protocol and config); deloreis-net links them.
func TestDeloreisLinksNoNetwork(t *testing.T) {
	heavy := []string{
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"net/http",
		"crypto/tls",
		"golang.org/x/crypto/ssh",
		"github.com/ProtonMail/go-crypto/openpgp",
		"github.com/go-git/go-git/v5/plumbing/transport/client",
		"github.com/deloreis/deloreis/internal/netparts",
		"github.com/deloreis/deloreis/mcpserve",
		"github.com/deloreis/deloreis/internal/gcpolicy", "runtime/metrics",
		// go-git's protocol, transport and config packages (DL-0350):
		// their initialisers (regexps, gob) cost every command.
		"github.com/deloreis/deloreis/lorestore/wire",
		"encoding/gob",
		"github.com/go-git/gcfg",
		"github.com/go-git/go-git/v5/config",
		"github.com/go-git/go-git/v5/internal/url",
		"github.com/go-git/go-git/v5/plumbing/transport",
		"github.com/go-git/go-git/v5/plumbing/protocol/packp",
	}
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			m[p] = true
		}
		return m
	}
	slim, full := deps("../../cmd/deloreis"), deps("../../cmd/deloreis-net")
	for _, p := range heavy {
		if slim[p] {
			t.Errorf("deloreis links %s", p)
		}
		if !full[p] {
			t.Errorf("deloreis-net does not link %s", p)
		}
	}
}

// TestHandOver runs the deloreis program as installed: a command of the
// network half goes to deloreis-net beside it (an MCP session, a clone),
// a local one runs in deloreis itself, and without deloreis-net the
// network commands fail with a clear error and change nothing.
func TestHandOver(t *testing.T) {
	bin := binary(t)
	origin := filepath.Join(t.TempDir(), "origin")
	if out, err := exec.Command(bin, "init", "--store", origin).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command(bin, "--store", clone, "clone", "file://"+origin).CombinedOutput(); err != nil {
		t.Fatalf("clone through deloreis-net: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(clone, "HEAD")); err != nil {
		t.Fatalf("the clone made no store: %v", err)
	}
	mcp := exec.Command(bin, "mcp", "--tools", "bogus")
	var stderr bytes.Buffer
	mcp.Stderr = &stderr
	if err := mcp.Run(); exitOf(err) != 2 || !strings.Contains(stderr.String(), `--tools "bogus"`) {
		t.Errorf("mcp --tools bogus through deloreis-net: %v, %q; want exit 2 naming the flag", err, stderr.String())
	}

	// deloreis alone, with no deloreis-net beside it or on PATH.
	alone := filepath.Join(t.TempDir(), "deloreis")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+t.TempDir())
	for _, args := range [][]string{
		{"--store", filepath.Join(t.TempDir(), "c2"), "clone", "file://" + origin},
		{"--store", clone, "fetch"},
		{"--store", clone, "sync"},
		{"mcp"},
		{"dke", "checkup", "--store", clone},
		{"casebook"},
		{"serve", "--store", clone},
		{"serve", "--store", clone, "--sync", "origin"},
	} {
		c := exec.Command(alone, args...)
		c.Env = env
		out, err := c.CombinedOutput()
		if exitOf(err) != 1 || !strings.Contains(string(out), "runs in deloreis-net, which is neither beside this program nor on PATH") {
			t.Errorf("%v without deloreis-net: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(t.TempDir(), "c2")); err == nil {
		t.Error("a refused clone left a store")
	}
	c := exec.Command(alone, "--store", clone, "log", "-n", "1")
	c.Env = env
	if out, err := c.CombinedOutput(); err != nil {
		t.Errorf("log without deloreis-net: %v\n%s", err, out)
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
