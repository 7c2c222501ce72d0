package service

import (
	"context"
	"testing"
)

// TestCheckupEmptyStore: an empty store reports its counts and nothing
// else (contract §9.6). Its _meta over MCP: TestDKECheckupEmptyStore
// (mcpserve).
func TestCheckupEmptyStore(t *testing.T) {
	f := newFixture(t)
	resp, txt := f.call(context.Background(), "checkup", map[string]any{})
	if !resp.OK() {
		t.Fatalf("checkup: %+v", resp)
	}
	if want := "checkup: 0 claims, 0 kinds, 0 modules, 0 rules, 0 constraints\n"; txt != want {
		t.Errorf("checkup of an empty store: %q, want %q", txt, want)
	}
}
