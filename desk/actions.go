// The reviewer's decisions: materialize (optionally under a decision),
// discard the workspace, discard one declaration, defeat a claim. Each
// checks the session's CSRF token, then calls the author use case the
// agent's op calls, fenced by the digest the page was rendered from: a
// stale page is refused with a reload, nothing applied.

package desk

import (
	"net/http"
	"strings"

	"github.com/deloreis/deloreis/author"
	"github.com/deloreis/deloreis/fault"
)

// form is what every decision form carries.
type form struct {
	ws, digest, key string
}

// decide checks a decision request and hands its fence to do; a refusal
// is a page, and nothing is applied.
func (d *Desk) decide(w http.ResponseWriter, r *http.Request, op string, do func(f form, g author.Guard) (string, error)) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !d.checkCSRF(r) {
		http.Error(w, "Forbidden: a missing or wrong CSRF token; nothing was applied. Reload the page and decide again.", http.StatusForbidden)
		return
	}
	f := form{ws: r.PathValue("id"), digest: r.PostFormValue("digest"), key: r.PostFormValue("key")}
	if f.digest == "" {
		d.fail(w, r, fault.Errorf(fault.Invalid, fault.CodeMissingField, "the form carries no workspace digest; nothing was applied").With("field", "digest"))
		return
	}
	g := author.Guard{Op: op, ExpectedDigest: f.digest}
	if f.key != "" {
		// A second submit of one rendered form replays the first answer.
		g.IdempotencyKey = "desk-" + f.key
	}
	next, err := do(f, g)
	if fault.CodeOf(err) == author.CodeStaleFence {
		d.stale(w, r, f, err)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// staleView is the refusal of a page rendered from an older digest.
type staleView struct {
	Workspace, Presented, Message string
}

func (d *Desk) stale(w http.ResponseWriter, r *http.Request, f form, err error) {
	v := staleView{Workspace: f.ws, Presented: f.digest, Message: fault.Of(err).Message}
	d.render(w, http.StatusConflict, func(b *hw) { stalePage(b, v) })
}

func (d *Desk) materialize(w http.ResponseWriter, r *http.Request) {
	d.decide(w, r, "author.materialize", func(f form, g author.Guard) (string, error) {
		decision := strings.TrimSpace(r.PostFormValue("decision"))
		reason := strings.TrimSpace(r.PostFormValue("reason"))
		if decision != "" && reason != "" {
			// A new decision with its reason is recorded first, under the
			// same fence (a ledger op leaves the digest as it was). A
			// blocked workspace is refused before anything is recorded.
			st, err := d.svc.Status(r.Context(), &author.WorkspaceParams{Workspace: f.ws})
			if err != nil {
				return "", err
			}
			if st.WorkspaceDigest != f.digest {
				_, err := d.svc.Materialize(r.Context(), g, &author.MaterializeParams{Workspace: f.ws}) // the use case words the refusal
				return "", err
			}
			if st.Blocked {
				return "", fault.Errorf(fault.Refused, "blocked", "workspace %s cannot materialize: error findings stand; nothing was recorded", f.ws)
			}
			rg := g
			rg.Op = "author.record_decision"
			if rg.IdempotencyKey != "" {
				rg.IdempotencyKey += "-decision"
			}
			if _, err := d.svc.RecordDecision(r.Context(), rg, &author.RecordDecisionParams{Workspace: f.ws,
				DecisionRecord: author.DecisionRecord{Decision: decision, Rationale: reason}}); err != nil {
				return "", err
			}
		}
		res, err := d.svc.Materialize(r.Context(), g, &author.MaterializeParams{Workspace: f.ws, Decision: decision})
		if err != nil {
			return "", err
		}
		return "/commit/" + res.RootHash, nil
	})
}

func (d *Desk) discard(w http.ResponseWriter, r *http.Request) {
	d.decide(w, r, "author.discard", func(f form, g author.Guard) (string, error) {
		_, err := d.svc.Discard(r.Context(), g, &author.DiscardParams{Workspace: f.ws})
		return "/", err
	})
}

func (d *Desk) discardDecl(w http.ResponseWriter, r *http.Request) {
	d.decide(w, r, "author.discard", func(f form, g author.Guard) (string, error) {
		decl := r.PostFormValue("decl")
		if decl == "" {
			return "", fault.Errorf(fault.Invalid, fault.CodeMissingField, "the form names no declaration").With("field", "decl")
		}
		_, err := d.svc.Discard(r.Context(), g, &author.DiscardParams{Workspace: f.ws, Decl: decl})
		return "/ws/" + f.ws, err
	})
}

func (d *Desk) defeat(w http.ResponseWriter, r *http.Request) {
	d.decide(w, r, "author.defeat", func(f form, g author.Guard) (string, error) {
		res, err := d.svc.Defeat(r.Context(), g, &author.DefeatParams{Workspace: f.ws, ClaimID: strings.TrimSpace(r.PostFormValue("claim")),
			Decision: strings.TrimSpace(r.PostFormValue("decision")), DefeatedDecision: strings.TrimSpace(r.PostFormValue("defeated"))})
		if err != nil {
			return "", err
		}
		return "/commit/" + res.RootHash, nil
	})
}
