// The neighbourhood picture: the entities and relations near what a
// workspace stages, at its base commit, with the attacks among them by
// grounded label — drawn by Graphviz's dot when it is installed, listed
// plainly when it is not. Never the whole world.

package desk

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/deloreis/deloreis/author"
)

// maxFocus is how many staged entities the picture centres on.
const maxFocus = 8

// hood is a neighbourhood: nodes, edges (staged ones marked), attacks.
type hood struct {
	Workspace string
	Dot       bool // the page shows dot's drawing
	Nodes     []author.GraphEntity
	Edges     []hoodEdge
	Attacks   []author.GraphAttack
	Note      string
}

type hoodEdge struct {
	Pred, From, To, Grade string
	Staged                bool
}

func (d *Desk) neighbourhood(ctx context.Context, id string) (*hood, error) {
	st, df, err := d.statusDiff(ctx, id)
	if err != nil {
		return nil, err
	}
	h := &hood{Workspace: id, Dot: d.opt.Dot != ""}
	nodes := map[string]author.GraphEntity{}
	edges := map[hoodEdge]bool{}
	var focus []string
	seen := map[string]bool{}
	for _, c := range df.Consequences.GradeChanged {
		for _, a := range c.Args {
			if !seen[a] && len(focus) < maxFocus*4 {
				seen[a] = true
				focus = append(focus, a)
			}
		}
		if len(c.Args) == 2 {
			edges[hoodEdge{Pred: c.Pred, From: c.Args[0], To: c.Args[1], Grade: c.After, Staged: true}] = true
			for _, a := range c.Args {
				if _, ok := nodes[a]; !ok {
					nodes[a] = author.GraphEntity{ID: a}
				}
			}
		}
	}
	if st.RootHash != "" {
		// One graph of the base for every focus (a value, or an entity new
		// in the workspace, is not in it and is left out).
		gs, err := d.svc.GraphNeighbourhoods(ctx, author.GraphOptions{Rev: st.RootHash, Scope: st.Scope, Depth: 1}, focus)
		if err != nil {
			return nil, err
		}
		if len(gs) > maxFocus {
			h.Note = fmt.Sprintf("the picture centres on the first %d staged entities", maxFocus)
			gs = gs[:maxFocus]
		}
		for _, g := range gs {
			for _, n := range g.Entities {
				nodes[n.ID] = n
			}
			for _, x := range g.Edges {
				edges[hoodEdge{Pred: x.Pred, From: x.From, To: x.To, Grade: x.Grade}] = true
			}
			h.Attacks = append(h.Attacks, g.Attacks...)
		}
	}
	for _, n := range nodes {
		h.Nodes = append(h.Nodes, n)
	}
	sort.Slice(h.Nodes, func(i, j int) bool { return h.Nodes[i].ID < h.Nodes[j].ID })
	for e := range edges {
		if e.Staged || !edges[hoodEdge{Pred: e.Pred, From: e.From, To: e.To, Grade: e.Grade, Staged: true}] {
			h.Edges = append(h.Edges, e)
		}
	}
	sort.Slice(h.Edges, func(i, j int) bool {
		a, b := h.Edges[i], h.Edges[j]
		return a.From+"\x00"+a.Pred+"\x00"+a.To < b.From+"\x00"+b.Pred+"\x00"+b.To
	})
	sort.Slice(h.Attacks, func(i, j int) bool {
		return h.Attacks[i].Attacker+h.Attacks[i].Claim < h.Attacks[j].Attacker+h.Attacks[j].Claim
	})
	return h, nil
}

func (d *Desk) picture(w http.ResponseWriter, r *http.Request) {
	h, err := d.neighbourhood(r.Context(), r.PathValue("id"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { picturePage(b, h) })
}

// pictureSVG is dot's drawing. The page shows it as an image, where no
// script of it runs; served alone it carries a policy that runs none.
func (d *Desk) pictureSVG(w http.ResponseWriter, r *http.Request) {
	if d.opt.Dot == "" {
		http.NotFound(w, r)
		return
	}
	h, err := d.neighbourhood(r.Context(), r.PathValue("id"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.opt.Dot, "-Tsvg")
	cmd.Stdin = bytes.NewReader(h.dot())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		http.Error(w, "dot: "+err.Error()+": "+errb.String(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(out.Bytes())
}

// dot is the neighbourhood in Graphviz's language; every label and id is
// a quoted string, so no text of the world can change the drawing's shape.
func (h *hood) dot() []byte {
	var b bytes.Buffer
	b.WriteString("digraph hood {\n  rankdir=LR;\n  node [shape=box, fontname=\"sans-serif\"];\n")
	for _, n := range h.Nodes {
		label := n.ID
		if n.Name != "" && n.Name != n.ID {
			label = n.Name + "\n" + n.ID
		}
		style := ""
		if n.Grade == "possible" {
			style = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %s [label=%s%s];\n", quote(n.ID), quote(label), style)
	}
	for _, e := range h.Edges {
		style := ""
		if e.Staged {
			style = ", color=\"#b35900\", penwidth=2"
		} else if e.Grade == "possible" {
			style = ", style=dashed"
		}
		fmt.Fprintf(&b, "  %s -> %s [label=%s%s];\n", quote(e.From), quote(e.To), quote(e.Pred), style)
	}
	for _, a := range h.Attacks {
		fmt.Fprintf(&b, "  %s [shape=ellipse, label=%s];\n  %s [shape=ellipse, label=%s];\n  %s -> %s [color=red, label=%s];\n",
			quote("d:"+a.Attacker), quote(a.Attacker+" ("+a.AttackerLabel+")"), quote("d:"+a.Target), quote(a.Target+" ("+a.TargetLabel+")"),
			quote("d:"+a.Attacker), quote("d:"+a.Target), quote("attacks on "+a.Claim[:min(12, len(a.Claim))]))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// quote is a DOT string: double quotes and backslashes escaped, newlines
// as DOT's line breaks.
func quote(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "\"", "\\\"")
	s = strings.ReplaceAll(s, "\r", "")
	return "\"" + strings.ReplaceAll(s, "\n", "\\n") + "\""
}
