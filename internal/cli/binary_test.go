package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryKeepsDeadCodeOut: the program never reaches reflect's method
// lookup by name (text/template's, through a cobra template such as
// SetVersionTemplate): where it does, the linker keeps every exported
// method of every type, and the binary grew from 27 to 32 MB (more to map
// at every start).
func TestBinaryKeepsDeadCodeOut(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", binary(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []string{" T reflect.Value.MethodByName", " T text/template.(*state).evalField"} {
		if strings.Contains(string(out), sym) {
			t.Errorf("the program links%s: something reaches a method by name (a cobra template?)", sym)
		}
	}
}

// TestStartUpLinksNoProtocolLibraries: package initialisers run at every
// start of every command, whether the command uses the package or not.
// go-git's file transport links its in-process server, the object model
// and an OpenPGP library (curves parsed at start-up: about a tenth of a
// millisecond of each `log -n 2`), and its ssh transport an ssh
// implementation (another tenth); the program reaches local repositories
// through git's own commands and ssh remotes through the system's ssh, as
// git does (lorestore/wire, DL-0511).
func TestStartUpLinksNoProtocolLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/deloreis").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/ProtonMail/go-crypto/", "github.com/go-git/go-git/v5/plumbing/transport/file", "github.com/go-git/go-git/v5/plumbing/transport/server", "github.com/go-git/go-git/v5/plumbing/object",
			"golang.org/x/crypto/ssh", "github.com/kevinburke/ssh_config", "github.com/skeema/knownhosts", "github.com/go-git/go-git/v5/plumbing/transport/ssh"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("the program links %s", pkg)
			}
		}
	}
}
