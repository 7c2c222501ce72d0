package mcpserve_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/deloreis/deloreis/worker"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The protocol version go-sdk v1.8.0 negotiates by default. The goldens
// pin it: a go-sdk upgrade that negotiates another one must be a
// deliberate change of these files, not a silent one.
const wantProtocol = "2026-07-28"

// TestSessionGolden pins what a client sees on connecting: the negotiated
// protocol version, the server's name and capabilities, and the tools of
// each profile with their schemas and annotations.
func TestSessionGolden(t *testing.T) {
	for _, profile := range []worker.Profile{worker.ProfileFiction, worker.ProfileExtended} {
		t.Run(string(profile), func(t *testing.T) {
			cs := connect(t, newRegistry(t), profile)
			init := cs.InitializeResult()
			if init.ProtocolVersion != wantProtocol {
				t.Errorf("negotiated protocol %q, want %q", init.ProtocolVersion, wantProtocol)
			}
			got, err := json.MarshalIndent(map[string]any{
				"initialize": init,
				"tools":      listTools(t, cs),
			}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "session-"+string(profile)+".golden"), append(got, '\n'))
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpserve -update)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from what the server answers now (run go test ./mcpserve -update and review the diff)", path)
	}
}
