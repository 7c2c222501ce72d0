package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryKeepsDeadCodeOut: the program never reaches reflect's method
// lookup by name (text/template's, through a cobra template such as
// SetVersionTemplate): where it does, the linker keeps every exported
// method of every type, and the binary grew from 27 to 32 MB (more to map
// at every start).
func TestBinaryKeepsDeadCodeOut(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", binary(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sym := range []string{" T reflect.Value.MethodByName", " T text/template.(*state).evalField"} {
		if strings.Contains(string(out), sym) {
			t.Errorf("the program links%s: something reaches a method by name (a cobra template?)", sym)
		}
	}
}
