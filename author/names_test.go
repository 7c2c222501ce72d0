package author

import (
	"errors"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/fault"
)

// TestScopeNames: a scope that differs from a declared one only by case
// or Unicode form, or that is not in NFC, is refused, and nothing is
// committed (DL-0437). Before the rule "Camelot" was declared beside
// "camelot".
func TestScopeNames(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	if _, err := h.svc.DeclareScope(ctx, &DeclareScopeParams{Scope: "camelot"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ scope, want string }{
		{"Camelot", "differs from it only by case"},
		{"CAMELOT", "differs from it only by case"},
		{"avalo\u0301n", "NFC"},
	} {
		before, err := h.store.Head("main")
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.svc.DeclareScope(ctx, &DeclareScopeParams{Scope: c.scope})
		var f *fault.Error
		if !errors.As(err, &f) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("declare %q: %v, want a fault naming %q", c.scope, err, c.want)
		}
		if after, _ := h.store.Head("main"); after != before {
			t.Fatalf("declare %q: refused yet main moved", c.scope)
		}
	}
}
