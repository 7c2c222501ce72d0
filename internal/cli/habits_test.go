// Tests of the habits a newcomer brings from git and cobra (issue 33):
// --version, typo hints, a show with no argument, log ranges, conflicts
// and a missing identity by exit status.

package cli

import (
	"strings"
	"testing"
)

// TestVersionFlag: `deloreis --version` prints what `deloreis version`
// prints and exits 0, as cobra's Version and git do.
func TestVersionFlag(t *testing.T) {
	want := mustRun(t, "version")
	for _, args := range [][]string{{"--version"}, {"--project", ".", "--version"}} {
		out, errs, code := deloreis(t, args...)
		if code != 0 || out != want || errs != "" {
			t.Errorf("deloreis %s: exit %d, stdout %q, stderr %q; want %q", strings.Join(args, " "), code, out, errs, want)
		}
	}
}
