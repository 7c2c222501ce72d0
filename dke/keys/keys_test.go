package keys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func TestCreateLookupRevoke(t *testing.T) {
	dir := t.TempDir()
	r := Open(dir)
	if _, err := r.Lookup("dke_w_nothing"); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("lookup in an empty ring: %v", err)
	}
	wk, err := r.Create("default", Write, now)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := r.Create("other", Read, now)
	if err != nil {
		t.Fatal(err)
	}
	if wk == rk || !strings.HasPrefix(wk, "dke_w_") || !strings.HasPrefix(rk, "dke_r_") {
		t.Fatalf("keys %q %q", wk, rk)
	}
	for _, c := range []struct {
		key   string
		store string
		write bool
	}{{wk, "default", true}, {rk, "other", false}} {
		g, err := r.Lookup(c.key)
		if err != nil || g.Store != c.store || g.CanWrite() != c.write {
			t.Errorf("lookup %s: %+v %v", c.key[:6], g, err)
		}
	}
	// The ring holds hashes, never a key.
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if strings.Contains(string(data), wk[6:]) || strings.Contains(string(data), rk[6:]) {
		t.Fatal("the keyring holds a key in the clear")
	}
	if info, _ := os.Stat(filepath.Join(dir, FileName)); info.Mode().Perm() != 0o600 {
		t.Errorf("keyring mode %v", info.Mode().Perm())
	}
	g, _ := r.Lookup(rk)
	if n, err := r.Revoke(g.Hash[:10]); n != 1 || err != nil {
		t.Fatalf("revoke: %d %v", n, err)
	}
	if _, err := r.Lookup(rk); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a revoked key still works: %v", err)
	}
	if _, err := r.Lookup(wk); err != nil {
		t.Fatalf("revoking one key lost another: %v", err)
	}
	if _, err := r.Revoke(g.Hash[:10]); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("revoke of a gone key: %v", err)
	}
}

func TestCreateRefusals(t *testing.T) {
	r := Open(t.TempDir())
	for _, c := range []struct {
		store string
		mode  Mode
		want  error
	}{
		{"default", "admin", ErrBadMode},
		{"", Read, ErrBadStore},
		{"../x", Read, ErrBadStore},
		{"a/b", Write, ErrBadStore},
		{"-x", Write, ErrBadStore},
		{"refs/heads/main", Write, ErrBadStore},
		{"a\nb", Write, ErrBadStore},
		{strings.Repeat("s", 300), Write, ErrBadStore},
	} {
		if _, err := r.Create(c.store, c.mode, now); !errors.Is(err, c.want) {
			t.Errorf("create(%q, %q): %v, want %v", c.store, c.mode, err, c.want)
		}
	}
	if es, _ := r.List(); len(es) != 0 {
		t.Fatalf("refused creates stored %d keys", len(es))
	}
}

func TestLockedRingChangesNothing(t *testing.T) {
	dir := t.TempDir()
	r := Open(dir)
	if _, err := r.Create("default", Write, now); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName+".lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create("default", Read, now); !errors.Is(err, ErrLocked) {
		t.Fatalf("create under another's lock: %v", err)
	}
	if es, _ := r.List(); len(es) != 1 {
		t.Fatalf("%d keys after a locked create", len(es))
	}
}
