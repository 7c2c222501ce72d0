// docs/findings.md is generated from the catalogue; this test keeps it
// current (go test ./world -update rewrites it).

package world

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/findings.md")

func renderCatalogue() string {
	var b strings.Builder
	b.WriteString("# Findings\n\n")
	b.WriteString("Generated from `world.Catalogue` by `go test ./world -update`; do not edit.\n\n")
	b.WriteString("A finding is `{code, severity, grade, message, citations, repair?, data?}`. Severity gates\n")
	b.WriteString("materialization (`error` blocks it); grade states the strength of the evidence:\n")
	b.WriteString("`asserted` (one declaration) < `checked` (declarations compared) < `derived` (the saturated world).\n\n")
	b.WriteString("| code | severity | grade | meaning |\n| --- | --- | --- | --- |\n")
	for _, c := range Catalogue {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Code, c.Severity, c.Grade, c.Meaning)
	}
	return b.String()
}

func TestCatalogueDoc(t *testing.T) {
	const path = "../docs/findings.md"
	got := renderCatalogue()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Fatalf("%s is stale; run go test ./world -update", path)
	}
	codes := make([]string, len(Catalogue))
	for i, c := range Catalogue {
		codes[i] = c.Code
	}
	if !sort.StringsAreSorted(codes) {
		t.Fatal("the catalogue is not in code order")
	}
}
