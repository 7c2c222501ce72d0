package worker

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dke/service"
	"github.com/deloreis/deloreis/lorestore"
)

// dkeRegistry is a registry of the DKE tools over a fresh lorestore.
func dkeRegistry(t *testing.T) *Registry {
	t.Helper()
	ls, err := lorestore.Init(filepath.Join(t.TempDir(), "lore"), lorestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ls.Close() })
	svc, err := service.New(service.Config{Store: ls})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	RegisterDKE(reg, svc)
	return reg
}

// TestDKEReadOnlyToolsAreNotMutating: the contract's 13 tools; the grant's
// read-only tools are exactly the ops that change nothing; no DKE tool is
// under the DLI mutation law (DL-0233); the forget tools are destructive.
func TestDKEReadOnlyToolsAreNotMutating(t *testing.T) {
	reg := dkeRegistry(t)
	ro := map[string]bool{}
	for _, n := range service.ReadOnlyTools() {
		ro[n] = true
	}
	ops := reg.Ops(ProfileExtended)
	if len(ops) != 13 {
		t.Errorf("%d ops, want the contract's 13", len(ops))
	}
	for _, op := range ops {
		if op.ReadOnly() != ro[op.Name] || op.Mutating {
			t.Errorf("%s: read-only op %v, mutating %v, read-only tool %v", op.Name, op.ReadOnly(), op.Mutating, ro[op.Name])
		}
		if op.Destructive != strings.HasPrefix(op.Name, "forget") {
			t.Errorf("%s: destructive %v", op.Name, op.Destructive)
		}
	}
}

// TestDKEErrorCodesListed: every code an op names is in
// service.ErrorCodes, so the generated reference can class it.
func TestDKEErrorCodesListed(t *testing.T) {
	known := service.ErrorCodes()
	for _, op := range dkeRegistry(t).Ops(ProfileExtended) {
		for _, c := range op.Errors {
			if _, ok := known[c]; !ok {
				t.Errorf("%s: code %s is not in ErrorCodes", op.Name, c)
			}
		}
	}
}
