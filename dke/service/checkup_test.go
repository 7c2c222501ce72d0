package service

import (
	"context"
	"testing"
)

// TestCheckupEmptyStore: an empty store reports its counts and nothing
// else (contract §9.6).
func TestCheckupEmptyStore(t *testing.T) {
	f := newFixture(t)
	resp, meta, txt := f.call(context.Background(), "checkup", map[string]any{})
	if !resp.OK() || meta["status"] != "success" {
		t.Fatalf("checkup: %+v %v", resp, meta)
	}
	if want := "checkup: 0 claims, 0 kinds, 0 modules, 0 rules, 0 constraints\n"; txt != want {
		t.Errorf("checkup of an empty store: %q, want %q", txt, want)
	}
}
