package service

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The DKE lines an outside conformance pass found partial (issue 33,
// item 6), each held over the service's methods.

// TestStoresOfAnUnwrittenStore holds stores() on a store nothing has
// written: it has no created-at, so the field is left out and the text
// says so, where a written store reports when it was first written.
func TestStoresOfAnUnwrittenStore(t *testing.T) {
	cases := []struct {
		name    string
		setup   string // a run before stores, or ""
		created bool
		text    string
	}{
		{"never written", "", false, "default  0 claims, 0 modules  not yet written\n"},
		{"written once", "remember(A.a.x, 1, \"s\")\n", true, "default  1 claim, 0 modules  created 2026-01-02T03:05:05Z\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			bg := context.Background()
			if c.setup != "" {
				f.mustOK(bg, "run", map[string]any{"source": c.setup})
			}
			a, text := f.call(bg, "stores", map[string]any{})
			if !a.OK() {
				t.Fatal(a.Err)
			}
			var r struct {
				Stores []map[string]any `json:"stores"`
			}
			if err := json.Unmarshal(a.Result, &r); err != nil {
				t.Fatal(err)
			}
			created, has := r.Stores[0]["created"]
			if has != c.created || has && created == "" {
				t.Errorf("created %q (present %v), want present %v", created, has, c.created)
			}
			if text != c.text {
				t.Errorf("text %q, want %q", text, c.text)
			}
		})
	}
}

// TestCheckupNearAttribute holds checkup's near pair for an attribute
// misspelt under the right kind (Tree.*.fruitt beside the reasoning's
// Tree.*.fruit), as well as for a misspelt kind.
func TestCheckupNearAttribute(t *testing.T) {
	const rules = "@rule\ndef ripe(t):\n    if Tree[t].fruit == True:\n        Orchard[t].ripe = True\n"
	cases := []struct {
		name, data, near string
	}{
		{"attribute", "remember(Tree.t1.fruitt, True, \"s\")\n",
			"near Tree.*.fruitt ~ Tree.*.fruit: the data is written under attribute fruitt of kind Tree, the reasoning reads attribute fruit"},
		{"kind", "remember(Tre.t1.fruit, True, \"s\")\n",
			"near Tre.*.fruit ~ Tree.*.fruit: the data is written under kind Tre, the reasoning reads kind Tree"},
		{"two letters apart", "remember(Tree.t1.fruttt, True, \"s\")\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			bg := context.Background()
			f.mustOK(bg, "compile", map[string]any{"name": "orchard", "source": rules})
			f.mustOK(bg, "run", map[string]any{"source": c.data})
			r, err := f.svc.Checkup(bg, &StoreParams{})
			if err != nil {
				t.Fatal(err)
			}
			var near []string
			for _, l := range r.Findings {
				if strings.HasPrefix(l, "near ") {
					near = append(near, l)
				}
			}
			if c.near == "" && len(near) != 0 || c.near != "" && !slices.Equal(near, []string{c.near}) {
				t.Errorf("near lines %q, want %q; findings %q", near, c.near, r.Findings)
			}
		})
	}
}

// TestReloadRestoresForgottenRule holds DKE §9.3 (DL-0445): compile
// {name} without source compiles the stored source again, so a rule
// forgotten since the last compile comes back with its conclusions, and
// the transcript says what was restored.
func TestReloadRestoresForgottenRule(t *testing.T) {
	const src = "@rule\ndef ripe(t):\n    if Tree[t].fruit == True:\n        Orchard[t].ripe = True\n\nremember(Tree.t1.fruit, True, \"s\")\n"
	const probe = "print(current(Orchard.t1.ripe).found)\n"
	f := newFixture(t)
	bg := context.Background()
	f.mustOK(bg, "compile", map[string]any{"name": "orchard", "source": src})
	if got := f.mustOK(bg, "run", map[string]any{"source": probe}); !strings.Contains(got, "True") {
		t.Fatalf("before forgetting: %q", got)
	}
	f.mustOK(bg, "forget_rule", map[string]any{"name": "orchard.ripe"})
	if got := f.mustOK(bg, "run", map[string]any{"source": probe}); !strings.Contains(got, "False") {
		t.Fatalf("after forgetting: %q", got)
	}
	a, text := f.call(bg, "compile", map[string]any{"name": "orchard"})
	if !a.OK() {
		t.Fatal(a.Err)
	}
	if !strings.HasPrefix(text, "reloaded module orchard\nrestored:\n  rule orchard.ripe\n") {
		t.Errorf("transcript %q does not say the rule was restored", text)
	}
	var r CompileResult
	if err := json.Unmarshal(a.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Restored == nil || !slices.Equal(r.Restored.Rules, []string{"orchard.ripe"}) || r.Installed != nil {
		t.Errorf("restored %+v installed %+v", r.Restored, r.Installed)
	}
	if got := f.mustOK(bg, "list", map[string]any{"target": "rules"}); !strings.Contains(got, "orchard.ripe") {
		t.Errorf("rules after the reload: %q", got)
	}
	if got := f.mustOK(bg, "run", map[string]any{"source": probe}); !strings.Contains(got, "True") {
		t.Errorf("the rule's conclusion is not back: %q", got)
	}
	// A second reload has nothing to restore and says nothing of it.
	if text := f.mustOK(bg, "compile", map[string]any{"name": "orchard"}); strings.Contains(text, "restored") {
		t.Errorf("second reload: %q", text)
	}
}
