package author

import (
	"testing"

	"github.com/zeebo/blake3"
)

// TestWorldFileFormatHash: the written-out format hash is the BLAKE3 of
// the text that names the format.
func TestWorldFileFormatHash(t *testing.T) {
	if blake3.Sum256([]byte(wfFormatText)) != wfFormat {
		t.Fatal("wfFormat is not the BLAKE3 of wfFormatText")
	}
}
