// Tests of the graph command: the DOT of a world with relations, derived
// facts, certain and possible claims and attacks of every grounded label
// (golden), and an SVG from Graphviz that parses as XML and names every
// entity.

package cli

import (
	"encoding/xml"
	"errors"
	"fmt"
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

// TestGraphFocus: --focus draws the part of the world around an entity
// (its node bold, the legend saying so), --depth its reach; an entity the
// world lacks fails with exit 1 and the near spellings, and bad flags are
// usage errors (exit 2).
func TestGraphFocus(t *testing.T) {
	store := graphStore(t)
	tests := []struct {
		name       string
		args       []string
		code       int
		has, lacks []string
		errs       string
	}{
		{"depth 1: the relations and the decisions on its claims", []string{"--focus", "galahad"}, 0,
			[]string{`"e:galahad" [shape=box, style="rounded,dashed,bold"`, `"e:lancelot"`, `"e:logres"`, `"d:canon-3" -> "d:canon-2"`, `"d:canon-4" -> "d:canon-5"`, `label="the --focus entity"`},
			[]string{`"e:sarras" [`}, ""},
		{"depth 0: the entity alone", []string{"--focus", "sarras", "--depth", "0"}, 0,
			[]string{`"e:sarras" [shape=box, style="rounded,dashed,bold"`},
			[]string{`"e:lancelot" [`, `"d:canon-1" [`, `"e:lancelot" -> "e:sarras"`}, ""},
		{"depth 1 from a place: who serves there", []string{"--focus", "sarras"}, 0,
			[]string{`"e:lancelot" -> "e:sarras" [label="serves"`},
			[]string{`"e:galahad" [`, `"d:canon-1" [`}, ""},
		{"an unknown entity", []string{"--focus", "galahd"}, 1, nil, nil, `no entity "galahd" in scope camelot at main (did you mean galahad?)`},
		{"--depth without --focus", []string{"--depth", "2"}, 2, nil, nil, "--depth needs --focus ENTITY"},
		{"a negative depth", []string{"--focus", "galahad", "--depth", "-1"}, 2, nil, nil, "--depth -1: want 0 or more hops"},
		{"a focus that is no id", []string{"--focus", "Sir Galahad"}, 2, nil, nil, `--focus "Sir Galahad" is not an entity id`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := deloreis(t, append([]string{"--store", store, "graph"}, tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.errs) || tc.errs == "" && errs != "" {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.errs)
			}
			for _, s := range tc.has {
				if !strings.Contains(out, s) {
					t.Errorf("lacks %s", s)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(out, s) {
					t.Errorf("has %s", s)
				}
			}
		})
	}
}

// TestGraphLegend: the picture's legend shows each node shape and edge
// style the picture uses, drawn with the same attributes.
func TestGraphLegend(t *testing.T) {
	out := mustRun(t, "--store", graphStore(t), "graph")
	at := strings.Index(out, `subgraph "cluster_legend"`)
	if at < 0 {
		t.Fatalf("no legend:\n%s", out)
	}
	legend := out[at:]
	for _, pair := range [][2]string{
		{`shape=box, style="rounded,dashed"`, `label="entity (possible or dead)"`},
		{`shape=ellipse`, `label="decision"`},
		{`style=dashed`, `label="derived (by a rule or identity)", style=dashed`},
		{`color=red`, `label="defeats: the attacker is in", color=red`},
		{`color=orange`, `label="attacks: the attacker is undecided", color=orange`},
		{`color=gray50`, `label="attacks: the attacker is out", color=gray50`},
	} {
		if !strings.Contains(out[:len(out)-len(legend)], pair[0]) || !strings.Contains(legend, pair[1]) {
			t.Errorf("the picture draws %s, its legend %s: %v %v", pair[0], pair[1],
				strings.Contains(out[:len(out)-len(legend)], pair[0]), strings.Contains(legend, pair[1]))
		}
	}
	if strings.Contains(legend, "--focus") {
		t.Error("the legend of a whole world names a focus")
	}
}

// TestGraphWarnsWhenLarge: past graphWarnNodes nodes the whole world is
// still drawn, with a warning on stderr suggesting --focus; at the
// threshold, no warning.
func TestGraphWarnsWhenLarge(t *testing.T) {
	for _, n := range []int{graphWarnNodes, graphWarnNodes + 1} {
		dir := t.TempDir()
		var b strings.Builder
		b.WriteString("scope big\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "person p-%d \"P %d\"  proposed  session-7c9\n", i, i)
		}
		file := filepath.Join(dir, "big.dli")
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		store := filepath.Join(dir, "s.lore")
		mustRun(t, "--store", store, "init", "--scope", "big")
		mustRun(t, "--store", store, "import", "--bulk", file, "--materialize")
		out, errs, code := deloreis(t, "--store", store, "graph")
		if code != 0 || strings.Count(out, "[shape=box") != n+2 { // and the legend's two
			t.Fatalf("%d entities: exit %d, %d boxes drawn", n, code, strings.Count(out, "[shape=box"))
		}
		warned := strings.Contains(errs, fmt.Sprintf("warning: the graph has %d nodes", n)) && strings.Contains(errs, "--focus ENTITY --depth N")
		if warned != (n > graphWarnNodes) || n == graphWarnNodes && errs != "" {
			t.Errorf("%d entities: stderr %q", n, errs)
		}
	}
}
