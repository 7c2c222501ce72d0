package lorestore

import (
	"fmt"
	"testing"
)

// TestShardName holds the constant table against the format it replaced.
func TestShardName(t *testing.T) {
	for b := range 256 {
		if got, want := shardName(byte(b)), fmt.Sprintf("%02x", b); got != want {
			t.Fatalf("shardName(%d) = %q, want %q", b, got, want)
		}
	}
}
