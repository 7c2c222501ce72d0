// Tests of the graph command: the DOT of a world with relations, derived
// facts, certain and possible claims and attacks of every grounded label
// (golden), and an SVG from Graphviz that parses as XML and names every
// entity.

package cli

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deloreis/deloreis/dli"
	"github.com/deloreis/deloreis/internal/testenv"
)

// graphSource is a world with something of every kind the graph draws;
// the attacks are added by graphStore once the claim ids are known.
const graphSource = `scope camelot
person galahad "Galahad \"the pure\""   proposed  session-7c9
person lancelot "Lancelot"   proposed  session-7c9
place logres "Logres"   proposed  session-7c9
place sarras "Sarras"   proposed  session-7c9
decision canon-1
decision canon-2
decision canon-3
decision canon-4
decision canon-5
galahad.father = lancelot   cited  canon-1 ratified
serves(galahad, logres)   cited  canon-1 ratified
serves(lancelot, sarras)   proposed  session-7c9
rule dwells: dwells-in(X, Y) :- serves(X, Y)
  cited canon-1 ratified
`

// graphStore materializes graphSource plus its attacks in a new store:
// canon-3 defeats canon-2, whose attack on canon-1 is then out (about the
// father fact); canon-4 and canon-5 attack each other (undecided) about
// the serves relation.
func graphStore(t *testing.T) string {
	t.Helper()
	doc, err := dli.Parse("graph.dli", []byte(graphSource))
	if err != nil {
		t.Fatal(err)
	}
	var father, serves string
	for _, d := range doc.Decls {
		id, err := d.Object.ID()
		if err != nil {
			t.Fatal(err)
		}
		line := dli.RenderDecl(d.Object)[0]
		switch {
		case strings.HasPrefix(line, "galahad.father"):
			father = id.String()
		case strings.HasPrefix(line, "serves(galahad"):
			serves = id.String()
		}
	}
	src := graphSource +
		"attack canon-2 against canon-1 on " + father + "\n" +
		"attack canon-3 against canon-2 on " + father + "\n" +
		"attack canon-4 against canon-5 on " + serves + "\n" +
		"attack canon-5 against canon-4 on " + serves + "\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "graph.dli")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "s.lore")
	mustRun(t, "--store", store, "init", "--scope", "camelot")
	mustRun(t, "--store", store, "import", file, "--materialize")
	return store
}

func TestGraphDOT(t *testing.T) {
	store := graphStore(t)
	out := mustRun(t, "--store", store, "graph")
	golden(t, "graph-dot", out)
	for _, want := range []string{
		`"d:canon-3" -> "d:canon-2" [label="defeats`, "color=red",
		`"d:canon-2" -> "d:canon-1" [label="attacks`, "color=orange",
		`"e:lancelot" -> "e:sarras" [label="dwells-in", style=dashed`,
		`"e:galahad" -> "e:lancelot" [label="father"]`,
		`Galahad \"the pure\"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("graph DOT lacks %q", want)
		}
	}
	if again := mustRun(t, "--store", store, "graph", "--scope", "camelot", "--format", "dot"); again != out {
		t.Error("graph --scope camelot --format dot differs from graph")
	}
}

// TestGraphSVG renders through Graphviz's dot (.ci/run installs it) and
// checks that the SVG is XML naming every entity.
func TestGraphSVG(t *testing.T) {
	testenv.NeedTool(t, "dot") // apt-get install graphviz
	store := graphStore(t)
	svg := mustRun(t, "--store", store, "graph", "--format", "svg")
	dec := xml.NewDecoder(strings.NewReader(svg))
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse as XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tk.Name.Local
			}
		case xml.CharData:
			text.Write(tk)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("the SVG's root element is %q", root)
	}
	for _, e := range []string{"galahad", "lancelot", "logres", "sarras"} {
		if !strings.Contains(text.String(), e) {
			t.Errorf("the SVG does not name %s", e)
		}
	}
}
