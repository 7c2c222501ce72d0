// The pages as Go code over a small writer that escapes every value it is
// given. Not html/template: executing a template reaches reflect's method
// lookup by name, which keeps every exported method of the program in the
// binary (26.0 MB grew to 29.9 MB; TestBinaryKeepsDeadCodeOut, DL-0512).
// The rule that keeps the pages safe instead: markup is only ever a
// literal of this file; every value goes through w.f's escaping, and every
// value in a link through url.PathEscape or url.QueryEscape first.

package desk

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"time"

	"github.com/deloreis/deloreis/author"
)

// hw writes a page: literal markup, and values escaped as text.
type hw struct{ b strings.Builder }

// f writes the literal markup format with each argument escaped (as
// text, inside an element or a double-quoted attribute).
func (w *hw) f(format string, args ...any) {
	esc := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int:
			esc[i] = v
		default:
			esc[i] = html.EscapeString(fmt.Sprint(v))
		}
	}
	fmt.Fprintf(&w.b, format, esc...)
}

// lit writes literal markup of this file.
func (w *hw) lit(s string) { w.b.WriteString(s) }

// p is a path segment for a link.
func p(s string) string { return url.PathEscape(s) }

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func ago(t time.Time) string { return time.Since(t).Round(time.Second).String() + " ago" }

// head opens a page.
func (w *hw) head(title string) {
	w.f(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s · deloreis desk</title>
<link rel="stylesheet" href="/static/desk.css">
<script src="/static/desk.js" defer></script>
</head>
<body>
<header>
<nav aria-label="desk">
<a href="/" accesskey="w"><b>deloreis</b> desk</a>
<a href="/" accesskey="1">Workspaces</a>
<a href="/log" accesskey="2">History</a>
<a href="/branches" accesskey="3">Branches</a>
<span class="keys">keys: <kbd>g</kbd> workspaces · <kbd>h</kbd> history · <kbd>b</kbd> branches · <kbd>m</kbd> materialize · <kbd>r</kbd> reload</span>
</nav>
</header>
<main id="main">
<h1>%s</h1>
`, title, title)
}

func (w *hw) foot() { w.lit("\n</main>\n</body>\n</html>\n") }

// hidden writes the fields every decision form carries.
func (w *hw) hidden(csrf, digest, key string) {
	w.f(`<input type="hidden" name="csrf" value="%s"><input type="hidden" name="digest" value="%s"><input type="hidden" name="key" value="%s">`, csrf, digest, key)
}

func (w *hw) atom(pred string, args []string) {
	w.f(`<code>%s(%s)</code>`, pred, strings.Join(args, ", "))
}

func listPage(w *hw, l []author.WorkspaceSummary) {
	w.head("Workspaces")
	w.lit(`<p>The open workspaces of this server, live as agents stage. Open one to review what it stages and decide.</p>
<table class="list">
<thead><tr><th>workspace</th><th>scope / fork</th><th>branch</th><th>base commit</th><th>staged</th><th>blocking findings</th><th>last change</th></tr></thead>
<tbody id="workspaces" data-poll="/workspaces.part">`)
	listRows(w, l)
	w.lit("</tbody>\n</table>\n")
	w.foot()
}

func listRows(w *hw, l []author.WorkspaceSummary) {
	for _, s := range l {
		cls := "ws"
		if s.Blocking > 0 {
			cls += " blocked"
		}
		w.f(`<tr class="%s"><td><a href="/ws/%s">%s</a></td><td>%s`, cls, p(s.Workspace), s.Workspace, s.Scope)
		if s.Fork != "" {
			w.f(` / fork <q>%s</q>`, s.Fork)
		}
		base := "(no commit yet)"
		if s.RootHash != "" {
			base = short(s.RootHash)
		}
		w.f(`</td><td>%s</td><td><code>%s</code></td><td>%d</td><td>`, s.Branch, base, s.Staged)
		if s.Blocking > 0 {
			w.f(`<strong class="error">%d</strong>`, s.Blocking)
		} else {
			w.lit("0")
		}
		w.f("</td><td>%s</td></tr>\n", ago(s.Changed))
	}
	if len(l) == 0 {
		w.lit(`<tr><td colspan="7">No workspace is open. An agent opens one with author_open.</td></tr>`)
	}
}

func (w *hw) finding(f findingView) {
	w.f(`<li class="finding %s"><span class="sev">%s</span> <code>%s</code> %s`, f.Severity, f.Severity, f.Code, f.Message)
	if len(f.Data) > 0 {
		w.lit(`<dl class="data">`)
		for _, d := range f.Data {
			w.f(`<dt>%s</dt><dd>%s</dd>`, d.K, d.V)
		}
		w.lit(`</dl>`)
	}
	if len(f.Citations) > 0 {
		w.lit(`<div class="cites">cites `)
		for _, c := range f.Citations {
			w.f(`<code title="%s">%s</code> `, c, short(c))
		}
		w.lit(`</div>`)
	}
	if r := f.Repair; r != nil {
		w.f(`<div class="repair">repair: <b>%s</b>`, r.Kind)
		if len(r.Candidates) > 0 {
			w.lit(" — pick one of ")
			for i, c := range r.Candidates {
				if i > 0 {
					w.lit(", ")
				}
				w.f(`<code>%s</code>`, c)
			}
		}
		if r.Op != "" {
			w.f(` — call <code>%s</code>`, r.Op)
		}
		if r.Params != "" {
			w.f(` with <code>%s</code>`, r.Params)
		}
		w.lit(`</div>`)
	}
	w.lit("</li>\n")
}

func (w *hw) pager(what, param string, pg pager) {
	if pg.Pages <= 1 {
		return
	}
	w.f(`<nav class="pager">%s page %d of %d `, what, pg.Page, pg.Pages)
	if pg.Page > 1 {
		w.f(`<a href="?%s=%d">previous</a> `, param, pg.Page-1)
	}
	if pg.Page < pg.Pages {
		w.f(`<a href="?%s=%d">next</a>`, param, pg.Page+1)
	}
	w.lit("</nav>\n")
}

// workspacePage is one workspace for review: its meta line, then one
// section each for its findings, what it stages, what that changes and
// the forms that decide.
func workspacePage(w *hw, csrf string, v *wsView) {
	st := v.Status
	ws := p(st.Workspace)
	w.head("Workspace " + st.Workspace)
	w.f(`<div id="stale-banner" class="banner" hidden role="alert">This workspace changed since the page was rendered. <a href="/ws/%s" id="reload-banner">Reload (r)</a></div>
<p id="ws-meta" data-workspace="%s" data-digest="%s">Scope <b>%s</b>`, ws, st.Workspace, st.WorkspaceDigest, st.Scope)
	if st.Fork != "" {
		w.f(`, fork <q>%s</q>`, st.Fork)
	}
	if st.RootHash != "" {
		w.f(` · base commit <code><a href="/commit/%s">%s</a></code>`, p(st.RootHash), short(st.RootHash))
	} else {
		w.lit(` · base commit <code>(none)</code>`)
	}
	w.f(` · digest <code>%s</code> · `, st.WorkspaceDigest)
	if st.Blocked {
		w.f(`<strong class="error">blocked: %d error finding(s)</strong>`, v.Blocking)
	} else {
		w.lit(`<span class="ok">ready to materialize</span>`)
	}
	w.f(` · <a href="/ws/%s/picture" accesskey="p">neighbourhood picture</a></p>
`, ws)

	findingsSection(w, v)
	stagedSection(w, csrf, v)
	consequencesSection(w, v)
	decideSection(w, csrf, v)
	w.foot()
}

// findingsSection lists the findings over the staged world: what a
// reviewer reads first, and what blocks materialize.
func findingsSection(w *hw, v *wsView) {
	w.f("<section aria-labelledby=\"h-findings\">\n<h2 id=\"h-findings\">Findings (%d)</h2>\n", len(v.Findings))
	if len(v.Findings) == 0 {
		w.lit("<p>None.</p>\n")
	} else {
		w.lit(`<ul class="findings">` + "\n")
		for _, f := range v.Findings {
			w.finding(f)
		}
		w.lit("</ul>\n")
	}
	w.lit("</section>\n")
}

// stagedSection shows the staged declarations, one row each with the
// form that discards it, a page of rows at a time.
func stagedSection(w *hw, csrf string, v *wsView) {
	st := v.Status
	ws := p(st.Workspace)
	w.f("<section aria-labelledby=\"h-staged\">\n<h2 id=\"h-staged\">Staged declarations (%d)</h2>\n<pre class=\"dli\">%s</pre>\n", v.RowsPage.Total, strings.Join(v.Rendered, "\n"))
	w.lit(`<table class="rows"><thead><tr><th>#</th><th>declaration</th><th>type</th><th>before</th><th>after</th><th></th></tr></thead><tbody>` + "\n")
	for i, r := range v.Rows {
		w.f(`<tr class="diffrow"><td>%d</td><td><pre>%s</pre></td><td>%s</td><td>%s</td><td>%s</td><td><form method="post" action="/ws/%s/discard-decl">`,
			v.RowsPage.From+i+1, strings.Join(r.Rendered, "\n"), r.Type, r.Before, r.After, ws)
		w.hidden(csrf, st.WorkspaceDigest, v.Key+"-"+r.Decl)
		w.f(`<input type="hidden" name="decl" value="%s"><button type="submit">Discard this declaration</button></form></td></tr>`+"\n", r.Decl)
	}
	w.lit("</tbody></table>\n")
	w.pager("declarations", "rows", v.RowsPage)
	w.lit("</section>\n")
}

// consequencesSection shows what the staged declarations change in the
// derived world: the counts, new conflicts and the atoms whose grade moved.
func consequencesSection(w *hw, v *wsView) {
	ws := p(v.Status.Workspace)
	w.f("<section aria-labelledby=\"h-diff\">\n<h2 id=\"h-diff\">Consequences</h2>\n<p>%d newly certain · %d newly possible · %d newly dead · %d grade changed · %d conflicts</p>\n",
		v.Counts[0], v.Counts[1], v.Counts[2], v.ChangesPage.Total, len(v.Conflicts))
	if len(v.Conflicts) > 0 {
		w.lit(`<ul class="findings">`)
		for _, f := range v.Conflicts {
			w.finding(f)
		}
		w.lit("</ul>\n")
	}
	w.lit(`<table class="changes"><thead><tr><th>atom</th><th>before</th><th>after</th><th></th></tr></thead><tbody>` + "\n")
	for _, c := range v.Changes {
		q := url.Values{"pred": {c.Pred}, "arg": c.Args}
		w.lit(`<tr class="change"><td>`)
		w.atom(c.Pred, c.Args)
		w.f(`</td><td>%s</td><td>%s</td><td><a href="/ws/%s/why?%s">why</a></td></tr>`+"\n", c.Before, c.After, ws, q.Encode())
	}
	w.lit("</tbody></table>\n")
	w.pager("consequences", "changes", v.ChangesPage)
	w.lit("</section>\n")
}

// decideSection holds the forms that act on the workspace: materialize,
// defeat and discard, each fenced by the digest the page was rendered at.
func decideSection(w *hw, csrf string, v *wsView) {
	st := v.Status
	ws := p(st.Workspace)
	w.lit("<section aria-labelledby=\"h-decide\" class=\"decide\">\n<h2 id=\"h-decide\">Decide</h2>\n")
	w.f(`<form method="post" action="/ws/%s/materialize" id="materialize-form">`, ws)
	w.hidden(csrf, st.WorkspaceDigest, v.Key+"-m")
	w.f(`<fieldset><legend>Materialize: commit what is staged to %s</legend>
<label>decision id (optional) <input name="decision" id="decision" autocomplete="off"></label>
<label>reason (records the decision first; leave empty to cite a recorded one) <input name="reason" id="reason" autocomplete="off"></label>
<button type="submit" id="materialize">Materialize</button>
</fieldset></form>
`, st.Scope)
	w.f(`<form method="post" action="/ws/%s/defeat">`, ws)
	w.hidden(csrf, st.WorkspaceDigest, v.Key+"-d")
	w.lit(`<fieldset><legend>Defeat a stored claim</legend>
<label>claim id <input name="claim" required autocomplete="off"></label>
<label>by decision <input name="decision" required autocomplete="off"></label>
<label>defeating <input name="defeated" required autocomplete="off"></label>
<button type="submit">Defeat</button></fieldset></form>
`)
	w.f(`<form method="post" action="/ws/%s/discard">`, ws)
	w.hidden(csrf, st.WorkspaceDigest, v.Key+"-x")
	w.lit(`<fieldset><legend>Discard the whole workspace</legend><button type="submit" id="discard">Discard workspace</button></fieldset></form>
</section>
`)
}

func (w *hw) paths(ps [][]string) {
	w.lit("<ul>")
	for _, path := range ps {
		w.lit("<li>")
		if len(path) == 0 {
			w.lit("unconditional")
		}
		for _, l := range path {
			w.f("<code>%s</code> ", l)
		}
		w.lit("</li>")
	}
	if len(ps) == 0 {
		w.lit("<li>none</li>")
	}
	w.lit("</ul>\n")
}

func whyPage(w *hw, v whyView) {
	y := v.Why
	w.head("Why " + y.Pred)
	w.f(`<p><a href="/ws/%s">back to %s</a></p><p>`, p(v.Workspace), v.Workspace)
	w.atom(y.Pred, y.Args)
	w.f(` is <b>%s</b>`, y.Grade)
	if y.Truncated {
		w.lit(" (more paths than listed)")
	}
	w.lit(".</p>\n<h2>Active support paths</h2>\n")
	w.paths(y.ActivePaths)
	w.lit("<h2>Blocked supports</h2>\n<ul>")
	for _, b := range y.BlockedSupports {
		w.f("<li><code>%s</code> — blocked by <code>%s</code></li>", strings.Join(b.Path, " "), strings.Join(b.Blockers, " "))
	}
	if len(y.BlockedSupports) == 0 {
		w.lit("<li>none</li>")
	}
	w.lit("</ul>\n")
	if len(y.BlockingDefeats) > 0 {
		w.f("<h2>Blocking defeats</h2><p><code>%s</code></p>\n", strings.Join(y.BlockingDefeats, " "))
	}
	if len(y.AttackPairs) > 0 {
		w.lit("<h2>Attacks</h2><ul>")
		for _, a := range y.AttackPairs {
			w.f("<li><code>%s</code> attacks <code>%s</code></li>", a[0], a[1])
		}
		w.lit("</ul>\n")
	}
	w.foot()
}

func picturePage(w *hw, h *hood) {
	w.head("Neighbourhood of " + h.Workspace)
	w.f(`<p><a href="/ws/%s">back to %s</a>`, p(h.Workspace), h.Workspace)
	if h.Note != "" {
		w.f(" · %s", h.Note)
	}
	w.lit("</p>\n")
	if h.Dot {
		w.f(`<p><img src="/ws/%s/picture.svg" alt="the neighbourhood of what %s stages, drawn by Graphviz; the lists below say the same"></p>`+"\n", p(h.Workspace), h.Workspace)
	}
	w.lit("<h2>Entities</h2>\n<ul>")
	for _, n := range h.Nodes {
		w.f("<li><code>%s</code> %s", n.ID, n.Name)
		if n.Kind != "" {
			w.f(" (%s, %s)", n.Kind, n.Grade)
		}
		w.lit("</li>")
	}
	w.lit("</ul>\n<h2>Relations</h2>\n<ul>")
	for _, e := range h.Edges {
		w.f("<li><code>%s</code> —%s→ <code>%s</code> (%s)", e.From, e.Pred, e.To, e.Grade)
		if e.Staged {
			w.lit(" <b>staged</b>")
		}
		w.lit("</li>")
	}
	w.lit("</ul>\n<h2>Attacks</h2>\n<ul>")
	for _, a := range h.Attacks {
		w.f("<li><code>%s</code> (%s) attacks <code>%s</code> (%s) on <code>%s</code>", a.Attacker, a.AttackerLabel, a.Target, a.TargetLabel, short(a.Claim))
		if a.Defeats {
			w.lit(" — defeats it")
		}
		w.lit("</li>")
	}
	w.lit("</ul>\n")
	w.foot()
}

func logPage(w *hw, v logView) {
	w.head("History")
	w.lit(`<table class="log"><thead><tr><th></th><th>commit</th><th>summary</th><th>author</th><th>when</th><th>trailers</th></tr></thead><tbody>` + "\n")
	for _, c := range v.Rows {
		mark := "●"
		if c.Merge {
			mark = "⑂"
		}
		w.f(`<tr class="commit"><td class="graph" aria-hidden="true">%s</td><td><a href="/commit/%s"><code>%s</code></a>`, mark, p(c.Commit.Commit), short(c.Commit.Commit))
		if c.Merge {
			w.lit("<br><small>merge of ")
			for _, par := range c.Parents {
				w.f("<code>%s</code> ", short(par))
			}
			w.lit("</small>")
		}
		w.f("</td><td>%s</td><td>%s</td><td>%s</td><td>", c.Summary, c.Author.Name, c.Author.When)
		for _, t := range c.Trailers {
			w.f("<div><small>%s: %s</small></div>", t.Key, t.Value)
		}
		w.lit("</td></tr>\n")
	}
	if len(v.Rows) == 0 {
		w.lit(`<tr><td colspan="6">No commit yet.</td></tr>`)
	}
	w.lit("</tbody></table>\n")
	if v.More {
		w.lit("<p>Older commits are not shown.</p>\n")
	}
	w.foot()
}

func commitPage(w *hw, v commitView) {
	c := v.Show.Commit
	w.head("Commit " + c.Commit)
	w.f("<p><code>%s</code> · %s &lt;%s&gt; · %s</p>\n<p class=\"summary\">%s</p>\n", c.Commit, c.Author.Name, c.Author.Email, c.Author.When, c.Summary)
	if len(c.Parents) > 0 {
		w.lit("<p>parents ")
		for _, par := range c.Parents {
			w.f(`<a href="/commit/%s"><code>%s</code></a> `, p(par), short(par))
		}
		w.lit("</p>\n")
	}
	w.lit(`<ul class="trailers">`)
	for _, t := range c.Trailers {
		w.f("<li>%s: <b>%s</b></li>", t.Key, t.Value)
	}
	w.lit("</ul>\n<pre class=\"dli\">")
	for _, l := range v.Lines {
		cls := "add"
		if l.Sign == "-" {
			cls = "del"
		}
		w.f(`<span class="%s">%s %s</span>`+"\n", cls, l.Sign, l.Text)
	}
	if len(v.Lines) == 0 {
		w.lit("(no object changed)")
	}
	w.lit("</pre>\n")
	w.foot()
}

func branchesPage(w *hw, b author.BranchesResult) {
	w.head("Branches")
	w.f("<p>Serving branch <b>%s</b>", b.Serving)
	if b.Pin != "" {
		w.f(", pinned at <code>%s</code>", short(b.Pin))
	}
	w.lit(".</p>\n<table><thead><tr><th>branch</th><th>head</th></tr></thead><tbody>\n")
	for _, br := range b.Branches {
		w.f(`<tr><td><a href="/log?rev=%s">%s</a></td><td><a href="/commit/%s"><code>%s</code></a></td></tr>`+"\n",
			url.QueryEscape(br.Name), br.Name, p(br.Commit), short(br.Commit))
	}
	w.f(`</tbody></table>
<h2>Merge preview</h2>
<form method="get" action="/merge"><label>merge <input name="source" required></label> <label>into <input name="target" value="%s"></label> <button type="submit">Preview (writes nothing)</button></form>
`, b.Serving)
	w.foot()
}

func mergePage(w *hw, v mergeView) {
	r := v.Result
	target := v.Target
	if target == "" {
		target = "main"
	}
	w.head("Merge preview")
	w.f("<p>Merging <b>%s</b> into <b>%s</b>: nothing was written.</p>\n", v.Source, target)
	switch {
	case r.UpToDate:
		w.lit(`<p class="ok">Already merged: nothing to do.</p>`)
	case len(r.Conflicts) > 0 || len(r.Findings) > 0:
		w.lit(`<p class="error">The merge would be held back.</p>`)
	default:
		w.lit(`<p class="ok">The merge would go through cleanly.</p>`)
	}
	w.f("\n<p>base <code>%s</code> · source head <code>%s</code> · target head <code>%s</code></p>\n", short(r.Base), short(r.SourceHead), short(r.TargetHead))
	if len(r.Conflicts) > 0 {
		w.lit("<h2>Conflicts</h2><ul>")
		for _, c := range r.Conflicts {
			w.f("<li>%s: <b>%s</b> %s</li>", c.Scope, c.Kind, c.Message)
		}
		w.lit("</ul>\n")
	}
	if len(r.Findings) > 0 {
		w.lit("<h2>New error findings</h2><ul>")
		for _, f := range r.Findings {
			w.f("<li>%s: <code>%s</code> %s</li>", f.Scope, f.Code, f.Message)
		}
		w.lit("</ul>\n")
	}
	w.foot()
}

func errorPage(w *hw, code, message string) {
	w.head("Refused")
	w.f("<p class=\"error\" role=\"alert\"><code>%s</code> %s</p>\n<p>Nothing was applied. <a href=\"/\" autofocus>Back to the workspaces</a></p>\n", code, message)
	w.foot()
}

func stalePage(w *hw, v staleView) {
	w.head("Stale page")
	w.f(`<div class="banner" role="alert" id="stale">
<p>This page was rendered from digest <code>%s</code>; the workspace has changed since. <b>Nothing was applied.</b></p>
<p>%s</p>
<p><a href="/ws/%s" id="reload" autofocus>Reload the workspace (r)</a> and decide again on what it stages now.</p>
</div>
`, v.Presented, v.Message, p(v.Workspace))
	w.foot()
}
