package main

import "testing"

func TestZZProf(t *testing.T) {
	proj := t.TempDir()
	mustRun(t, "--project", proj, "init")
	mustRun(t, "import", "--project", proj, "--bulk", "--materialize", "../../.benchtmp/a1m.dli")
}
