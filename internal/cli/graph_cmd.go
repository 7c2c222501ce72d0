// The graph command: the world of a scope as a picture. Entities are
// boxes, relations between them arrows (derived ones dashed, possible ones
// grey), decisions ellipses, and attacks between decisions arrows coloured
// by the grounded label of the attacker: red when it defeats its target
// (in), orange when undecided, grey when the attacker is itself out; a
// legend in the picture says so. DOT is written natively; SVG comes from
// Graphviz's dot. A large world is drawn whole with a warning; --focus
// draws the part around one entity (selected by author.GraphSelect).

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/base/progress"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

// graphWarnNodes is the number of nodes past which graph warns that the
// picture is too big to read (and Graphviz's layout slow: 20,000 entities
// took 68 s) and suggests --focus (DL-0474).
const graphWarnNodes = 2000

// graphFlags are the flags of graph.
type graphFlags struct {
	scope, format, rev string
	focus              string
	depth              int
}

func newGraphCmd(g *globals) *cobra.Command {
	f := &graphFlags{}
	cmd := &cobra.Command{
		Use:   "graph [--scope S] [--format dot|svg] [--focus ENTITY [--depth N]]",
		Short: "Draw a scope's world: entities and relations, attacks and defeats (DOT, or SVG through Graphviz)",
		Long: `Draws the world of a scope at a revision (default main): entities as
boxes, relations and entity-valued facts as labelled arrows (derived ones
dashed, possible ones grey), decisions as ellipses, and attacks between
decisions as arrows coloured by the grounded label of the attacker: red
"defeats" (in), orange "attacks" (undecided), grey "attacks" (out). A
legend in the picture says the same.
--format dot prints Graphviz DOT; --format svg runs Graphviz's dot, which
must be installed (apt-get install graphviz).

--focus ENTITY draws only the part of the world within --depth hops
(default 1) of that entity, its node in bold: a hop goes either way along
a relation or an entity-valued fact, along an attack between decisions,
or between a decision and the entities of the claim it rules on. Above
` + fmt.Sprint(graphWarnNodes) + ` nodes the whole world is still drawn, with a warning on stderr
suggesting --focus. On a terminal, stderr shows the progress of the
compile and of Graphviz's layout.

Exit status: 1 when --focus names no entity of the world or Graphviz
fails; 2 on a usage error.`,
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			if f.scope != "" && !objects.ValidID(f.scope) {
				return usageError{fmt.Sprintf("--scope %q is not a scope id", f.scope)}
			}
			if f.rev == "" {
				return usageError{"--at: the revision is empty"}
			}
			if err := f.checkFocus(cmd); err != nil {
				return err
			}
			return checkFormat(f.format, "dot", "svg")
		},
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			return f.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), s)
		}),
	}
	cmd.Flags().StringVar(&f.scope, "scope", "", "scope to draw (default: the store's only scope)")
	cmd.Flags().StringVar(&f.format, "format", "dot", "output format: dot or svg")
	cmd.Flags().StringVar(&f.rev, "at", author.DefaultBranch, "revision whose world is drawn")
	cmd.Flags().StringVar(&f.focus, "focus", "", "draw only the part of the world around this entity")
	cmd.Flags().IntVar(&f.depth, "depth", 1, "with --focus: how many hops from the entity are drawn")
	return cmd
}

// checkFocus refuses --depth without --focus, a negative depth and a
// focus that cannot be an entity id.
func (f *graphFlags) checkFocus(cmd *cobra.Command) error {
	switch {
	case f.focus == "" && cmd.Flags().Changed("depth"):
		return usageError{"--depth needs --focus ENTITY"}
	case f.depth < 0:
		return usageError{fmt.Sprintf("--depth %d: want 0 or more hops", f.depth)}
	case f.focus != "" && !objects.ValidID(f.focus):
		return usageError{fmt.Sprintf("--focus %q is not an entity id", f.focus)}
	}
	return nil
}

func (f *graphFlags) run(ctx context.Context, w, stderr io.Writer, s *author.Service) error {
	ctx, endProgress := progressOn(ctx, stderr)
	defer endProgress()
	g, err := s.GraphSelect(ctx, author.GraphOptions{Rev: f.rev, Scope: f.scope, Focus: f.focus, Depth: f.depth})
	var choose *author.ScopeChoiceError
	if errors.As(err, &choose) {
		return usageError{fmt.Sprintf("give --scope: %s holds %d scopes (%s)", choose.Rev, len(choose.Scopes), strings.Join(choose.Scopes, ", "))}
	}
	if err != nil {
		return err
	}
	if n := len(g.Entities) + len(g.Decisions); n > graphWarnNodes {
		endProgress()
		fmt.Fprintf(stderr, "warning: the graph has %d nodes, more than a picture can show readably (Graphviz may take minutes to lay it out);\n"+
			"hint: draw the part around one entity with --focus ENTITY --depth N\n", n)
		ctx, endProgress = progressOn(ctx, stderr)
		defer endProgress()
	}
	dot := renderDOT(g, f.focus)
	if f.format == "dot" {
		endProgress()
		_, err = w.Write(dot)
		return err
	}
	progress.Report(ctx, 0, 0, fmt.Sprintf("laying out %d nodes with Graphviz", len(g.Entities)+len(g.Decisions)))
	svg, err := dotToSVG(dot)
	endProgress()
	if err != nil {
		return err
	}
	_, err = w.Write(svg)
	return err
}

// dotToSVG runs Graphviz's dot on the DOT text and returns the SVG.
func dotToSVG(dot []byte) ([]byte, error) {
	path, err := exec.LookPath("dot")
	if err != nil {
		return nil, errors.New("--format svg needs Graphviz's dot, which is not installed (apt-get install graphviz); --format dot prints the graph without it")
	}
	var out, stderr bytes.Buffer
	c := exec.Command(path, "-Tsvg")
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(dot), &out, &stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("dot -Tsvg: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}

// renderDOT writes the graph in Graphviz's DOT language, with its legend;
// the focus entity ("" for none) is drawn bold.
func renderDOT(g author.GraphResult, focus string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(g.Scope))
	b.WriteString("\trankdir=LR;\n\tnode [fontname=\"Helvetica\", fontsize=11];\n\tedge [fontname=\"Helvetica\", fontsize=9];\n")
	for _, e := range g.Entities {
		style := "rounded"
		if e.Grade != gradeCertain {
			style = "rounded,dashed"
		}
		if e.ID == focus {
			style += ",bold"
		}
		fmt.Fprintf(&b, "\t%s [shape=box, style=%q, label=%s];\n",
			dotQuote("e:"+e.ID), style, dotQuote(e.ID+"\n"+e.Kind+": "+e.Name))
	}
	for _, d := range g.Decisions {
		fmt.Fprintf(&b, "\t%s [shape=ellipse, label=%s];\n", dotQuote("d:"+d), dotQuote("decision "+d))
	}
	for _, e := range g.Edges {
		var attrs []string
		if e.Derived {
			attrs = append(attrs, "style=dashed")
		}
		if e.Grade != gradeCertain {
			attrs = append(attrs, "color=gray50", "fontcolor=gray50")
		}
		fmt.Fprintf(&b, "\t%s -> %s [label=%s%s];\n", dotQuote("e:"+e.From), dotQuote("e:"+e.To), dotQuote(e.Pred), joinAttrs(attrs))
	}
	for _, a := range g.Attacks {
		verb, colour := "attacks", "gray50"
		switch a.AttackerLabel {
		case labelIn:
			verb, colour = "defeats", "red"
		case labelUndecided:
			colour = "orange"
		}
		label := fmt.Sprintf("%s (on %s)", verb, a.Claim[:12])
		fmt.Fprintf(&b, "\t%s -> %s [label=%s, color=%s, fontcolor=%s];\n",
			dotQuote("d:"+a.Attacker), dotQuote("d:"+a.Target), dotQuote(label), colour, colour)
	}
	writeLegend(&b, focus != "")
	b.WriteString("}\n")
	return b.Bytes()
}

// legendNodes and legendEdges are the legend: a sample of each node shape
// and edge style the picture uses, drawn as it draws them, with what it
// means. Their ids start "legend:", which no entity or decision node's do.
var (
	legendNodes = []struct{ id, attrs string }{
		{"entity", `shape=box, style="rounded", label="entity (certain)"`},
		{"uncertain", `shape=box, style="rounded,dashed", label="entity (possible or dead)"`},
		{"decision", `shape=ellipse, label="decision"`},
	}
	legendFocus = struct{ id, attrs string }{"focus", `shape=box, style="rounded,bold", label="the --focus entity"`}
	legendEdges = []struct {
		label string
		attrs []string
	}{
		{"relation or fact, stated", nil},
		{"derived (by a rule or identity)", []string{"style=dashed"}},
		{"possible", []string{"color=gray50", "fontcolor=gray50"}},
		{"defeats: the attacker is in", []string{"color=red", "fontcolor=red"}},
		{"attacks: the attacker is undecided", []string{"color=orange", "fontcolor=orange"}},
		{"attacks: the attacker is out", []string{"color=gray50", "fontcolor=gray50"}},
	}
)

// writeLegend writes the legend as a cluster of its own.
func writeLegend(b *bytes.Buffer, focused bool) {
	b.WriteString("\tsubgraph \"cluster_legend\" {\n\t\tlabel=\"legend\";\n\t\tfontname=\"Helvetica\";\n\t\tfontsize=11;\n\t\tcolor=gray70;\n")
	nodes := legendNodes
	if focused {
		nodes = append(nodes[:len(nodes):len(nodes)], legendFocus)
	}
	for _, n := range nodes {
		fmt.Fprintf(b, "\t\t%s [%s];\n", dotQuote("legend:"+n.id), n.attrs)
	}
	for i, e := range legendEdges {
		from, to := dotQuote(fmt.Sprintf("legend:%d", 2*i)), dotQuote(fmt.Sprintf("legend:%d", 2*i+1))
		fmt.Fprintf(b, "\t\t%s [shape=point, width=0.05];\n\t\t%s [shape=point, width=0.05];\n", from, to)
		fmt.Fprintf(b, "\t\t%s -> %s [label=%s%s];\n", from, to, dotQuote(e.label), joinAttrs(e.attrs))
	}
	b.WriteString("\t}\n")
}

// The grade and grounded labels as dli.graph spells them.
const (
	gradeCertain   = "certain"
	labelIn        = "in"
	labelUndecided = "undecided"
)

func joinAttrs(attrs []string) string {
	if len(attrs) == 0 {
		return ""
	}
	return ", " + strings.Join(attrs, ", ")
}

// dotQuote quotes s as a DOT string: backslashes and quotes escaped, a
// newline as DOT's \n line break. Free text from the lore is data here,
// never DOT syntax.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
