// The pages a reviewer reads: the open workspaces, one workspace (its
// staged declarations, the paged diff, the findings), the why of a
// consequence, and the history (log, a commit, branches, a merge preview).

package desk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
)

// pageSize is how many diff rows or consequences one page lists.
const pageSize = 50

// render writes a page built by page.
func (d *Desk) render(w http.ResponseWriter, status int, page func(*hw)) {
	var b hw
	page(&b)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, b.b.String())
}

// fail renders a use case's refusal or error as a page.
func (d *Desk) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	e := fault.Of(err)
	switch e.Class {
	case fault.Invalid:
		status = http.StatusBadRequest
	case fault.Refused, fault.NotFound:
		status = http.StatusUnprocessableEntity
	}
	if e.Code == "unknown-doc" || e.Class == fault.NotFound {
		status = http.StatusNotFound
	}
	d.render(w, status, func(b *hw) { errorPage(b, e.Code, e.Message) })
}

func (d *Desk) list(w http.ResponseWriter, r *http.Request) {
	l, err := d.svc.Workspaces(r.Context(), &author.Empty{})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { listPage(b, l) })
}

// listPart is the list's rows alone, which the page polls for.
func (d *Desk) listPart(w http.ResponseWriter, r *http.Request) {
	l, err := d.svc.Workspaces(r.Context(), &author.Empty{})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { listRows(b, l) })
}

// findingView is a finding as the page shows it.
type findingView struct {
	Code, Severity, Message string
	Blocking                bool
	Citations               []string
	Data                    []kv
	Repair                  *repairView
}

type kv struct{ K, V string }

type repairView struct {
	Kind, Op   string
	Candidates []string
	Params     string
}

func findingViews[F any](fs []F) []findingView {
	out := make([]findingView, 0, len(fs))
	for _, f := range fs {
		// Round-trip through JSON: the desk reads a finding as its wire
		// shape and names no core type.
		var w struct {
			Code      string         `json:"code"`
			Severity  string         `json:"severity"`
			Message   string         `json:"message"`
			Citations []string       `json:"citations"`
			Data      map[string]any `json:"data"`
			Repair    *struct {
				Kind       string         `json:"kind"`
				Candidates []string       `json:"candidates"`
				Op         string         `json:"op"`
				Params     map[string]any `json:"params"`
			} `json:"repair"`
		}
		b, _ := json.Marshal(f)
		_ = json.Unmarshal(b, &w)
		v := findingView{Code: w.Code, Severity: w.Severity, Message: w.Message, Blocking: w.Severity == "error", Citations: w.Citations}
		for k, x := range w.Data {
			v.Data = append(v.Data, kv{k, jsonText(x)})
		}
		sort.Slice(v.Data, func(i, j int) bool { return v.Data[i].K < v.Data[j].K })
		if w.Repair != nil {
			v.Repair = &repairView{Kind: w.Repair.Kind, Op: w.Repair.Op, Candidates: w.Repair.Candidates}
			if len(w.Repair.Params) > 0 {
				v.Repair.Params = jsonText(w.Repair.Params)
			}
		}
		out = append(out, v)
	}
	return out
}

func jsonText(x any) string {
	if s, ok := x.(string); ok {
		return s
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// pager is one page of a list of n.
type pager struct {
	Page, Pages, Total, From int
}

func paged[T any](xs []T, page int) ([]T, pager) {
	pages := max(1, (len(xs)+pageSize-1)/pageSize)
	page = min(max(page, 1), pages)
	lo := (page - 1) * pageSize
	hi := min(lo+pageSize, len(xs))
	return xs[lo:hi], pager{Page: page, Pages: pages, Total: len(xs), From: lo}
}

// wsView is the workspace page.
type wsView struct {
	Status       author.StatusResult
	Rendered     []string
	Rows         []author.DiffRow
	RowsPage     pager
	Changes      []author.Consequence
	ChangesPage  pager
	Counts       [3]int // newly certain, possible, dead
	Findings     []findingView
	Conflicts    []findingView
	Blocking     int
	Key          string // the idempotency key of this render's forms
	Stale        string // the digest a refused form presented, on a refusal page
	StaleMessage string
}

// statusDiff reads a workspace's status and its structured diff, which
// its pages show side by side.
func (d *Desk) statusDiff(ctx context.Context, id string) (author.StatusResult, author.DiffResult, error) {
	p := &author.WorkspaceParams{Workspace: id}
	st, err := d.svc.Status(ctx, p)
	if err != nil {
		return st, author.DiffResult{}, err
	}
	df, err := d.svc.Diff(ctx, p)
	return st, df, err
}

func (d *Desk) workspaceView(ctx context.Context, id string, rowsPage, changesPage int) (*wsView, error) {
	st, df, err := d.statusDiff(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &wsView{Status: st, Rendered: df.Rendered, Findings: findingViews(st.Findings), Conflicts: findingViews(df.Consequences.Conflicts),
		Counts: [3]int{len(df.Consequences.NewlyCertain), len(df.Consequences.Possible), len(df.Consequences.Dead)},
		Key:    fmt.Sprintf("%x", randomBytes(8))}
	if st.WorkspaceDigest != df.WorkspaceDigest {
		return nil, fault.Errorf(fault.Conflict, "busy", "workspace %s changed while it was read; reload", id)
	}
	for _, f := range v.Findings {
		if f.Blocking {
			v.Blocking++
		}
	}
	v.Rows, v.RowsPage = paged(df.Rows, rowsPage)
	v.Changes, v.ChangesPage = paged(df.Consequences.GradeChanged, changesPage)
	return v, nil
}

func intParam(r *http.Request, name string) int {
	n, _ := strconv.Atoi(r.URL.Query().Get(name))
	return n
}

func (d *Desk) workspace(w http.ResponseWriter, r *http.Request) {
	v, err := d.workspaceView(r.Context(), r.PathValue("id"), intParam(r, "rows"), intParam(r, "changes"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	csrf := d.csrf(sessionOf(r))
	d.render(w, http.StatusOK, func(b *hw) { workspacePage(b, csrf, v) })
}

// digest is the workspace's current digest as text, which the page polls
// to say it went stale.
func (d *Desk) digest(w http.ResponseWriter, r *http.Request) {
	st, err := d.svc.Status(r.Context(), &author.WorkspaceParams{Workspace: r.PathValue("id")})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "gone")
		return
	}
	fmt.Fprint(w, st.WorkspaceDigest)
}

// whyView is the why of one consequence.
type whyView struct {
	Workspace string
	Why       author.WhyResult
}

func (d *Desk) why(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := r.PathValue("id")
	res, err := d.svc.Why(r.Context(), &author.WhyParams{Workspace: id, Atom: author.GroundAtom{Pred: q.Get("pred"), Args: nonNil(q["arg"])}})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { whyPage(b, whyView{Workspace: id, Why: res}) })
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (d *Desk) log(w http.ResponseWriter, r *http.Request) {
	limit := intParam(r, "limit")
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	res, err := d.svc.Log(r.Context(), &author.LogParams{Rev: r.URL.Query().Get("rev"), Limit: limit})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { logPage(b, logGraph(res)) })
}

// logRow is one commit of the log with its lane marks: a text graph as
// `git log --graph` draws one for first parents, merges marked.
type logRow struct {
	author.Commit
	Merge bool
}

type logView struct {
	Rows []logRow
	More bool
}

func logGraph(res author.LogResult) logView {
	v := logView{More: res.More}
	for _, c := range res.Commits {
		v.Rows = append(v.Rows, logRow{Commit: c, Merge: len(c.Parents) > 1})
	}
	return v
}

// commitView is a commit as .dli lines added and removed.
type commitView struct {
	Show  author.ShowResult
	Lines []diffLine
}

type diffLine struct {
	Sign, Text, Scope string
}

func (d *Desk) commit(w http.ResponseWriter, r *http.Request) {
	res, err := d.svc.Show(r.Context(), &author.RevParams{Rev: r.PathValue("rev")})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	v := commitView{Show: res}
	for _, c := range res.Changes {
		sign := "+"
		if c.Removed {
			sign = "-"
		}
		for _, l := range c.Rendered {
			v.Lines = append(v.Lines, diffLine{Sign: sign, Text: l, Scope: c.Scope})
		}
	}
	d.render(w, http.StatusOK, func(b *hw) { commitPage(b, v) })
}

func (d *Desk) branches(w http.ResponseWriter, r *http.Request) {
	res, err := d.svc.Branches(r.Context(), &author.Empty{})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, func(b *hw) { branchesPage(b, res) })
}

// mergeView is a merge preview: what merging source into target would
// meet, nothing written.
type mergeView struct {
	Source, Target string
	Result         author.AuthorMergeResult
}

func (d *Desk) mergePreview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := mergeView{Source: q.Get("source"), Target: q.Get("target")}
	res, err := d.svc.MergeBranches(author.MergeRequest{Source: v.Source, Target: v.Target, Preview: true})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	v.Result = res
	d.render(w, http.StatusOK, func(b *hw) { mergePage(b, v) })
}
