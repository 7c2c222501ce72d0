package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// FakeSSH stands in for ssh for the rest of the test, as git's own tests
// do: GIT_SSH_COMMAND names a script that logs its arguments one a line,
// drops the options and the host, and runs the remote command on this
// machine (git-upload-pack as `git upload-pack`). It returns the log's
// path.
func FakeSSH(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	log, script := filepath.Join(dir, "args"), filepath.Join(dir, "ssh")
	body := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + log + "'\nwhile [ $# -gt 1 ]; do shift; done\nexec sh -c \"git ${1#git-}\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_SSH_COMMAND", script)
	t.Setenv("GIT_SSH", "")
	return log
}
