package author

import (
	"fmt"
	"sync"
	"testing"

	"github.com/deloreis/deloreis/jcs"
)

// TestConcurrentCalls: calls on different workspaces run in parallel and
// calls on one workspace are serialized — every staged object arrives,
// each once, and each digest is its workspace's canonical state (run under
// the race detector by make test).
func TestConcurrentCalls(t *testing.T) {
	h := newHarness(t, "camelot")
	const workspaces, writers, calls = 4, 2, 25
	ids := make([]string, workspaces)
	for i := range ids {
		ids[i] = h.ok("author.open", map[string]any{"scope": "camelot"})["workspace"].(string)
	}
	var wg sync.WaitGroup
	errs := make(chan string, workspaces*writers*calls)
	for w := 0; w < workspaces; w++ {
		for k := 0; k < writers; k++ {
			wg.Add(1)
			go func(w, k int) {
				defer wg.Done()
				for c := 0; c < calls; c++ {
					m := h.call("author.add_entity", map[string]any{"workspace": ids[w], "kind": "person",
						"id": fmt.Sprintf("w%d-k%d-c%d", w, k, c), "name": "N", "provenance": prop()})
					if m["ok"] != true {
						errs <- fmt.Sprint(m)
					}
					if c%5 == 0 {
						h.call("author.status", map[string]any{"workspace": ids[w]})
					}
				}
			}(w, k)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, id := range ids {
		ws, err := h.svc.workspace(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.staged) != writers*calls {
			t.Errorf("%s: %d staged, want %d", id, len(ws.staged), writers*calls)
		}
		if want := "wd-" + jcs.Sum(ws.canonicalState()).String(); ws.digest != want {
			t.Errorf("%s: digest is not its canonical state", id)
		}
	}
}
