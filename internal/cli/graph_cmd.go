// The graph command: the world of a scope as a picture. Entities are
// boxes, relations between them arrows (derived ones dashed, possible ones
// grey), decisions ellipses, and attacks between decisions arrows coloured
// by the grounded label of the attacker: red when it defeats its target
// (in), orange when undecided, grey when the attacker is itself out. DOT is
// written natively; SVG comes from Graphviz's dot.

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/objects"
	"github.com/spf13/cobra"
)

// graphFlags are the flags of graph.
type graphFlags struct {
	scope, format, rev string
}

func newGraphCmd(g *globals) *cobra.Command {
	f := &graphFlags{}
	cmd := &cobra.Command{
		Use:   "graph [--scope S] [--format dot|svg]",
		Short: "Draw a scope's world: entities and relations, attacks and defeats (DOT, or SVG through Graphviz)",
		Long: `Draws the world of a scope at a revision (default main): entities as
boxes, relations and entity-valued facts as labelled arrows (derived ones
dashed, possible ones grey), decisions as ellipses, and attacks between
decisions as arrows coloured by the grounded label of the attacker: red
"defeats" (in), orange "attacks" (undecided), grey "attacks" (out).
--format dot prints Graphviz DOT; --format svg runs Graphviz's dot, which
must be installed (apt-get install graphviz).`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			if f.scope != "" && !objects.ValidID(f.scope) {
				return usageError{fmt.Sprintf("--scope %q is not a scope id", f.scope)}
			}
			if f.rev == "" {
				return usageError{"--at: the revision is empty"}
			}
			return checkFormat(f.format, "dot", "svg")
		},
		RunE: g.withService(func(cmd *cobra.Command, _ []string, s *author.Service) error {
			return f.run(cmd.OutOrStdout(), s)
		}),
	}
	cmd.Flags().StringVar(&f.scope, "scope", "", "scope to draw (default: the store's only scope)")
	cmd.Flags().StringVar(&f.format, "format", "dot", "output format: dot or svg")
	cmd.Flags().StringVar(&f.rev, "at", author.DefaultBranch, "revision whose world is drawn")
	return cmd
}

func (f *graphFlags) run(w io.Writer, s *author.Service) error {
	g, err := s.GraphAt(f.rev, f.scope)
	var choose *author.ScopeChoiceError
	if errors.As(err, &choose) {
		return usageError{fmt.Sprintf("give --scope: %s holds %d scopes (%s)", choose.Rev, len(choose.Scopes), strings.Join(choose.Scopes, ", "))}
	}
	if err != nil {
		return err
	}
	dot := renderDOT(g)
	if f.format == "dot" {
		_, err = w.Write(dot)
		return err
	}
	return dotToSVG(w, dot)
}

// dotToSVG runs Graphviz's dot on the DOT text and writes the SVG.
func dotToSVG(w io.Writer, dot []byte) error {
	path, err := exec.LookPath("dot")
	if err != nil {
		return errors.New("--format svg needs Graphviz's dot, which is not installed (apt-get install graphviz); --format dot prints the graph without it")
	}
	var out, stderr bytes.Buffer
	c := exec.Command(path, "-Tsvg")
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(dot), &out, &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("dot -Tsvg: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	_, err = w.Write(out.Bytes())
	return err
}

// renderDOT writes the graph in Graphviz's DOT language.
func renderDOT(g author.GraphResult) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(g.Scope))
	b.WriteString("\trankdir=LR;\n\tnode [fontname=\"Helvetica\", fontsize=11];\n\tedge [fontname=\"Helvetica\", fontsize=9];\n")
	for _, e := range g.Entities {
		style := "rounded"
		if e.Grade != gradeCertain {
			style = "rounded,dashed"
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
	b.WriteString("}\n")
	return b.Bytes()
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
