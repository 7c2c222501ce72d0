package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBudgetFlags: --budget-memory and --budget-time set the budgets of a
// DKE call (DL-0428): a run that builds more than the memory budget is
// refused with budget-exceeded naming the flag, and commits nothing; a
// bad value is a usage error. Fails with the flags not wired.
func TestBudgetFlags(t *testing.T) {
	f := newDKEFixture(t)
	big := filepath.Join(f.dir, "big.dpy")
	if err := os.WriteFile(big, []byte("s = \"abcdefgh\"\n"+strings.Repeat("s = s + s\n", 10)+"print(s)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := "--store=" + f.store
	head := f.head(t)
	out, errs, code := deloreis(t, s, "--budget-memory", "4KiB", "dke", "run", big, "--store-id", "alpha")
	if code != 1 || !strings.Contains(out+errs, "memory budget of 4096 bytes") || !strings.Contains(out+errs, "--budget-memory") {
		t.Fatalf("a run past --budget-memory: exit %d: %s%s", code, out, errs)
	}
	if f.head(t) != head {
		t.Fatal("the refused run committed")
	}
	// Within the budget it runs (8 KiB printed, under 64 KiB built).
	if out, errs, code := deloreis(t, s, "--budget-memory", "64KiB", "--budget-time", "1m", "dke", "run", big, "--store-id", "alpha"); code != 0 {
		t.Fatalf("a run within its budget: exit %d: %s%s", code, out, errs)
	}
	if _, _, code := deloreis(t, s, "--budget-memory", "lots", "dke", "run", big, "--store-id", "alpha"); code != 2 {
		t.Fatalf("--budget-memory lots: exit %d, want the usage error's 2", code)
	}
}
