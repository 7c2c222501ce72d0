package author

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/deloreis/deloreis/internal/testenv"

	"github.com/deloreis/deloreis/objects"
)

// TestAddNameBounded: author.add_name with 1M words (a 4 MB request)
// answered 338 MB, one language.word-unknown finding per word. A name now
// lists at most MaxNameWords words, and a response at most
// MaxFindingsPerCode findings of one code, the rest counted in one more.
// Fails with the word bound or the aggregation removed.
func TestAddNameBounded(t *testing.T) {
	h := newExpertHarness(t, []*objects.Dialect{riverSpeech()}, "camelot")
	ws := h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	h.ok("author.add_entity", map[string]any{"workspace": ws, "kind": "person", "id": "mireth", "name": "Mireth", "provenance": prop()})
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("w%d", i)
		}
		return out
	}
	name := func(n int) map[string]any {
		return map[string]any{"workspace": ws, "entity": "mireth", "dialect": "river-speech", "name": "Mirwen", "words": words(n), "provenance": prop()}
	}

	for _, n := range []int{MaxNameWords + 1, 1_000_000} {
		t0 := time.Now()
		e := h.refused(CodeInvalidObject, "author.add_name", name(n))
		if b, _ := json.Marshal(e); len(b) > 1024 || time.Since(t0) > testenv.Bound(10*time.Second) {
			t.Fatalf("%d words: a %d-byte refusal after %v", n, len(b), time.Since(t0))
		}
	}

	n := MaxNameWords
	r := h.ok("author.add_name", name(n))
	fs := r["findings"].([]any)
	if len(fs) != MaxFindingsPerCode+1 {
		t.Fatalf("%d unknown words: %d findings, want %d and one counting the rest", n, len(fs), MaxFindingsPerCode)
	}
	last := fs[MaxFindingsPerCode].(map[string]any)
	data, _ := last["data"].(map[string]any)
	if last["code"] != "language.word-unknown" || data["more"] != float64(n-MaxFindingsPerCode) || data["total"] != float64(n) {
		t.Fatalf("the aggregated finding: %v", last)
	}
	if b, _ := json.Marshal(r); len(b) > 32<<10 {
		t.Fatalf("the answer is %d bytes", len(b))
	}
	// The reads are bounded the same way, and count every finding.
	st := h.ok("author.status", map[string]any{"workspace": ws})
	if got := len(st["findings"].([]any)); got != MaxFindingsPerCode+1 {
		t.Fatalf("status: %d findings", got)
	}
	ck := h.ok("author.check", map[string]any{"workspace": ws})
	if got := len(ck["findings"].([]any)); got != MaxFindingsPerCode+1 || ck["warnings"] != float64(n) {
		t.Fatalf("check: %d findings, %v warnings; want %d and %d", got, ck["warnings"], MaxFindingsPerCode+1, n)
	}
}
