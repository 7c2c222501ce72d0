// Package desk is the reviewer's desk: web pages, served by the process
// that holds the workspaces, where a person reads what agents staged and
// decides. It is an adapter over the author use cases, as the MCP and
// stdio surfaces are: every decision (materialize, discard, defeat) goes
// through the same method and the same digest fence as the agent's op, so
// a page rendered from a stale digest is refused, never applied.
//
// The guards are those of the MCP endpoint (a loopback Host on a loopback
// listener, a loopback or same-site Origin) and, for a desk reachable
// beyond loopback, a bearer token or a session opened by a one-time login
// link. Every state-changing request carries a CSRF token bound to the
// browser's session cookie.
package desk

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"

	"github.com/deloreis/deloreis/author"
)

//go:embed static
var staticFS embed.FS

// Options shape a desk.
type Options struct {
	// Token, when set, is a bearer token a request may present instead of
	// a session (scripts, tests).
	Token string
	// Open says the desk is reachable beyond loopback: every request then
	// needs the bearer token or a session a one-time login link opened.
	Open bool
	// Log hears the one-time login links (standard error).
	Log io.Writer
	// Dot is Graphviz's dot program; "" looks it up on PATH, and a desk
	// without one draws the neighbourhood as a plain list.
	Dot string
}

// Desk serves the reviewer's pages over one author.Service.
type Desk struct {
	svc *author.Service
	opt Options
	key []byte // the HMAC key of the CSRF tokens, new each process

	mu       sync.Mutex
	sessions map[string]bool // sessions a login link opened (Open desks)
	once     string          // the one-time login code not used yet
}

// cookieName is the session cookie; it holds a random session id.
const cookieName = "deloreis_desk"

// New is a desk over svc.
func New(svc *author.Service, opt Options) *Desk {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Dot == "" {
		if p, err := exec.LookPath("dot"); err == nil {
			opt.Dot = p
		}
	}
	return &Desk{svc: svc, opt: opt, key: randomBytes(32), sessions: map[string]bool{}}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return b
}

// LoginLink mints a one-time login link under base (http://host:port): its
// first use opens a session and spends it. A newer link replaces an older.
func (d *Desk) LoginLink(base string) string {
	code := hex.EncodeToString(randomBytes(16))
	d.mu.Lock()
	d.once = code
	d.mu.Unlock()
	return strings.TrimSuffix(base, "/") + "/login?once=" + code
}

// Handler is the desk's routes behind its guards.
func (d *Desk) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", d.list)
	mux.HandleFunc("GET /workspaces.part", d.listPart)
	mux.HandleFunc("GET /ws/{id}", d.workspace)
	mux.HandleFunc("GET /ws/{id}/digest", d.digest)
	mux.HandleFunc("GET /ws/{id}/why", d.why)
	mux.HandleFunc("GET /ws/{id}/picture", d.picture)
	mux.HandleFunc("GET /ws/{id}/picture.svg", d.pictureSVG)
	mux.HandleFunc("POST /ws/{id}/materialize", d.materialize)
	mux.HandleFunc("POST /ws/{id}/discard", d.discard)
	mux.HandleFunc("POST /ws/{id}/discard-decl", d.discardDecl)
	mux.HandleFunc("POST /ws/{id}/defeat", d.defeat)
	mux.HandleFunc("GET /log", d.log)
	mux.HandleFunc("GET /commit/{rev}", d.commit)
	mux.HandleFunc("GET /branches", d.branches)
	mux.HandleFunc("GET /merge", d.mergePreview)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return d.guard(mux)
}

// guard runs the checks every request passes before any route sees it.
func (d *Desk) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		// No inline script runs, nothing is framed, no referrer leaves the site.
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // "no-referrer" makes a form's Origin "null"
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		loopback := localLoopback(r)
		if loopback && !loopbackHost(hostOnly(r.Host)) {
			// DNS rebinding: a foreign name resolved to this loopback port.
			http.Error(w, "Forbidden: host "+r.Host+" is not a loopback host", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, r.Host, loopback) {
			http.Error(w, "Forbidden: origin "+o+" may not use this desk", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "Forbidden: a cross-site request", http.StatusForbidden)
			return
		}
		if r.URL.Path == "/login" {
			d.login(w, r)
			return
		}
		sid := sessionOf(r)
		if d.opt.Open && !d.bearer(r) && !d.known(sid) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deloreis"`)
			http.Error(w, "Unauthorized: open the one-time login link printed where the server started, or present the bearer token", http.StatusUnauthorized)
			return
		}
		if sid == "" {
			sid = hex.EncodeToString(randomBytes(16))
			setSession(w, sid)
			r = withSession(r, sid)
		}
		next.ServeHTTP(w, r)
	})
}

// login spends a one-time code for a session and sends the browser home;
// the next link goes to the log.
func (d *Desk) login(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("once")
	d.mu.Lock()
	ok := d.once != "" && subtle.ConstantTimeCompare([]byte(code), []byte(d.once)) == 1
	var sid string
	if ok {
		d.once = ""
		sid = hex.EncodeToString(randomBytes(16))
		d.sessions[sid] = true
	}
	d.mu.Unlock()
	if !ok {
		http.Error(w, "Unauthorized: this login link is spent or wrong; the server prints a fresh one", http.StatusUnauthorized)
		return
	}
	setSession(w, sid)
	fmt.Fprintf(d.opt.Log, "deloreis: review desk: a login link was used; the next one: %s\n", d.LoginLink("http://"+r.Host))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (d *Desk) known(sid string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return sid != "" && d.sessions[sid]
}

// bearer reports whether r presents the desk's token (scheme in any case).
func (d *Desk) bearer(r *http.Request) bool {
	if d.opt.Token == "" {
		return false
	}
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimLeft(got, " ")), []byte(d.opt.Token)) == 1
}

// csrf is the token a form of session sid carries: an HMAC of the session
// id, which a page elsewhere can neither read nor compute.
func (d *Desk) csrf(sid string) string {
	m := hmac.New(sha256.New, d.key)
	m.Write([]byte(sid))
	return hex.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether a state-changing request carries its
// session's token.
func (d *Desk) checkCSRF(r *http.Request) bool {
	sid := sessionOf(r)
	got := r.PostFormValue("csrf")
	return sid != "" && got != "" && hmac.Equal([]byte(got), []byte(d.csrf(sid)))
}

func setSession(w http.ResponseWriter, sid string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sid, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

type sessionKey struct{}

// sessionOf is the request's session id: its cookie, or the one the guard
// just set.
func sessionOf(r *http.Request) string {
	if s, ok := r.Context().Value(sessionKey{}).(string); ok {
		return s
	}
	if c, err := r.Cookie(cookieName); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	return ""
}

func withSession(r *http.Request, sid string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sessionKey{}, sid))
}

// localLoopback reports whether the request came in on a loopback
// address, as go-sdk's DNS-rebinding check reads it.
func localLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && loopbackHost(host)
}

// originAllowed: on loopback, a loopback origin (as /mcp allows); beyond
// it, the desk's own origin only.
func originAllowed(origin, host string, loopback bool) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if loopback {
		return loopbackHost(u.Hostname())
	}
	return strings.EqualFold(u.Host, host)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
